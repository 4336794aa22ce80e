/**
 * Builds the docs console (`console/src`, TypeScript) into markup the page inlines: one
 * `<style>` and one `<script>`, bundled and minified by esbuild (pinned). Two modules are made
 * here from the bundled spec the page shows: the operations (`virtual:console-spec`) and the
 * validators of their answers (`virtual:spec-validators`), Ajv standalone code from
 * `createSpecSchemas` of `@institution-api/runtime/spec-ajv`, the set-up the server validates with.
 * The page thus runs no `eval`, and "valid" in the console means what it means to the server.
 *
 * The console may add at most {@link CONSOLE_BUDGET_GZIP_BYTES} gzipped to the page; the build
 * fails above it.
 *
 * @module
 */
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { createSpecSchemas } from '@institution-api/runtime/spec-ajv';
import { build } from 'esbuild';
import { consoleSpec, responseSchemas } from './console-spec.mjs';

/** The console's budget: it adds at most 60 KB (gzip, default level) to the page. */
export const CONSOLE_BUDGET_GZIP_BYTES = 60_000;

const entryPoint = fileURLToPath(new URL('../../console/src/main.ts', import.meta.url));
const packageDir = fileURLToPath(new URL('../../', import.meta.url));

/** Marks the console's markup in the page, for the size check and the tests. */
export const CONSOLE_MARKER = 'try-it-console';

/**
 * The console's markup for a page that shows this spec, and its size.
 *
 * @param {any} document the bundled spec, parsed
 * @returns {Promise<{ markup: string; bytes: number; gzipBytes: number }>}
 * @throws {Error} when esbuild fails, or the console is over its budget
 */
export async function bundleConsole(document) {
  const spec = consoleSpec(document);
  const names = responseSchemas(spec);
  const validators = createSpecSchemas(document, { standalone: true }).standaloneModule(
    Object.fromEntries(names.map((name) => [name, name])),
  );
  /** @type {Record<string, import('esbuild').OnLoadResult>} */
  const modules = {
    'virtual:console-spec': { contents: JSON.stringify(spec), loader: 'json' },
    'virtual:spec-validators': {
      contents: `${validators}\nexport default { ${names.join(', ')} };\n`,
      loader: 'js',
      resolveDir: packageDir,
    },
  };
  const result = await build({
    entryPoints: [entryPoint],
    bundle: true,
    write: false,
    outdir: 'console',
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    charset: 'utf8',
    legalComments: 'none',
    logLevel: 'silent',
    plugins: [
      {
        name: 'spec-modules',
        setup(esbuild) {
          esbuild.onResolve({ filter: /^virtual:/ }, ({ path }) => ({ path, namespace: 'spec' }));
          esbuild.onLoad({ filter: /.*/, namespace: 'spec' }, ({ path }) => modules[path]);
        },
      },
    ],
  });
  const output = (/** @type {string} */ extension) =>
    result.outputFiles.find((file) => file.path.endsWith(extension))?.text ?? '';
  const markup = consoleMarkup(output('.js'), output('.css'));
  const gzipBytes = gzipSync(markup).length;
  if (gzipBytes > CONSOLE_BUDGET_GZIP_BYTES) {
    throw new Error(
      `the docs console is ${gzipBytes} bytes gzipped, over its budget of ${CONSOLE_BUDGET_GZIP_BYTES}`,
    );
  }
  return { markup, bytes: Buffer.byteLength(markup), gzipBytes };
}

/**
 * The console's `<style>` and `<script>`. esbuild escapes `</script` and `</style` in what it
 * writes; this checks it did, since either would end the element early.
 *
 * @param {string} js
 * @param {string} css
 * @returns {string}
 */
export function consoleMarkup(js, css) {
  if (/<\/script/i.test(js) || /<\/style/i.test(css)) {
    throw new Error('the console bundle would close its own <script> or <style> element');
  }
  return (
    `<style id="${CONSOLE_MARKER}-style">${css}</style>\n` +
    `<script id="${CONSOLE_MARKER}">${js}</script>\n`
  );
}

/**
 * The page with the console's markup before its last `</body>`.
 *
 * @param {string} html
 * @param {string} markup
 * @returns {string}
 */
export function withConsole(html, markup) {
  const end = html.lastIndexOf('</body>');
  if (end === -1) throw new Error('the page has no </body> to put the console before');
  return html.slice(0, end) + markup + html.slice(end);
}
