/**
 * The preview server of `npm run docs:dev`: serves the last page built from the working copy of
 * the spec, with a small live-reload script (Server-Sent Events) that only this preview injects.
 * node:http only, bound to 127.0.0.1, nothing fetched: it works offline like the published page.
 *
 * @module
 */
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join } from 'node:path';

/** Where the page listens for rebuilds. */
export const RELOAD_PATH = '/__docs-dev/events';

/**
 * Reloads the page when a build newer than the one it shows is announced (also after the preview
 * restarts, since the server sends the current build on every connection), and shows a failed
 * build in a banner, keeping the last good page readable underneath.
 */
const RELOAD_SCRIPT = `<script>
(() => {
  let shown;
  const events = new EventSource(${JSON.stringify(RELOAD_PATH)});
  events.addEventListener('build', (event) => {
    if (shown === undefined) shown = event.data;
    else if (event.data !== shown) location.reload();
  });
  events.addEventListener('failed', (event) => {
    let banner = document.getElementById('docs-dev-failed');
    if (!banner) {
      banner = document.createElement('pre');
      banner.id = 'docs-dev-failed';
      banner.style.cssText = 'position:fixed;z-index:9999;left:0;right:0;bottom:0;margin:0;' +
        'max-height:40vh;overflow:auto;padding:12px;background:#2b0b0b;color:#ffd7d7;' +
        'font:12px/1.4 ui-monospace,monospace;white-space:pre-wrap';
      document.body.append(banner);
    }
    banner.textContent = 'docs:dev: the last change did not build; showing the previous page.\\n\\n' +
      JSON.parse(event.data);
  });
})();
</script>`;

/**
 * The preview page: the built page plus {@link RELOAD_SCRIPT}, which reaches this server under
 * the page's own policy (`connect-src 'self'`).
 *
 * @param {string} html
 * @returns {string}
 */
export function withLiveReload(html) {
  return html.replace(/<\/body>(?![\s\S]*<\/body>)/, `${RELOAD_SCRIPT}\n</body>`);
}

/**
 * Starts the preview server over a directory holding `index.html`, `openapi.yaml` and
 * `openapi.json`. The files the page's header links (`/changelog.html`, the Postman collection)
 * are `made` on request instead, so that no work runs beside a rebuild or the page's reload.
 *
 * @param {{ dir: string; port: number; made?: Record<string, { type: string; make: () => Promise<string> }> }} options
 * @returns {Promise<{ url: string; announceBuild: (id: string) => void; announceFailure: (message: string) => void; close: () => Promise<void> }>}
 */
export async function startDevServer({ dir, port, made = {} }) {
  /** @type {Set<import('node:http').ServerResponse>} */
  const listeners = new Set();
  let lastBuild = '';
  /** @param {string} event @param {string} data */
  const send = (event, data) => {
    for (const listener of listeners) listener.write(`event: ${event}\ndata: ${data}\n\n`);
  };

  const page = { name: 'index.html', type: 'text/html; charset=utf-8' };
  /** @type {Record<string, { name: string; type: string } | undefined>} */
  const files = {
    '/': page,
    '/index.html': page,
    '/openapi.yaml': { name: 'openapi.yaml', type: 'application/yaml' },
    '/openapi.json': { name: 'openapi.json', type: 'application/json' },
  };

  const server = createServer(async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path === RELOAD_PATH) {
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-store',
        connection: 'keep-alive',
      });
      res.write(`event: build\ndata: ${lastBuild}\n\n`);
      listeners.add(res);
      req.on('close', () => listeners.delete(res));
      return;
    }
    const generated = made[path];
    if (generated && (req.method === 'GET' || req.method === 'HEAD')) {
      try {
        const body = await generated.make();
        res.writeHead(200, { 'content-type': generated.type, 'cache-control': 'no-store' });
        res.end(body);
      } catch (error) {
        res
          .writeHead(503, { 'content-type': 'text/plain' })
          .end(`${error instanceof Error ? error.message : String(error)}\n`);
      }
      return;
    }
    const file = files[path];
    if (!file || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found\n');
      return;
    }
    try {
      const body = await readFile(join(dir, file.name), 'utf8');
      res.writeHead(200, { 'content-type': file.type, 'cache-control': 'no-store' });
      res.end(file === page ? withLiveReload(body) : body);
    } catch {
      res
        .writeHead(503, { 'content-type': 'text/plain' })
        .end('The first build is not done yet.\n');
    }
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(undefined));
  });
  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;

  return {
    url: `http://localhost:${actualPort}/`,
    announceBuild: (id) => {
      lastBuild = id;
      send('build', id);
    },
    announceFailure: (message) => send('failed', JSON.stringify(message)),
    close: () =>
      new Promise((resolve) => {
        for (const listener of listeners) listener.end();
        server.close(() => resolve(undefined));
      }),
  };
}
