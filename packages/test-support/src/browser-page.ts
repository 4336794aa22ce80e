import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { build } from 'esbuild';

/** A page served on loopback for a browser test. */
export interface BrowserPage {
  /** The port it listens on, on 127.0.0.1. */
  port: number;
  /** `http://127.0.0.1:<port>/`, the page itself. */
  url: string;
  close(): Promise<void>;
}

/**
 * Serves at `/` a page that runs `entry` (a TypeScript module) bundled by esbuild for the browser,
 * so that nothing of Node can reach it, with `files` (path → content type and text) beside it.
 * Any other path answers `404`; a query is ignored.
 */
export async function serveBrowserPage(
  entry: string,
  files: Record<string, [contentType: string, text: string]> = {},
): Promise<BrowserPage> {
  const bundle = await build({
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
  });
  const served: Record<string, [string, string]> = {
    '/': ['text/html', '<!doctype html><script type="module" src="/page.js"></script>'],
    '/page.js': ['text/javascript', bundle.outputFiles[0]?.text ?? ''],
    ...files,
  };
  const server = createServer((req, res) => {
    const file = served[new URL(req.url ?? '/', 'http://page.invalid').pathname];
    res.writeHead(file ? 200 : 404, { 'content-type': file?.[0] ?? 'text/plain' });
    res.end(file?.[1] ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
