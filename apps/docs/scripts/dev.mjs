/**
 * `npm run docs:dev` (at the root) or `npm run dev` (here): a live preview for API designers.
 * It watches the spec's sources (`openapi/`, recursively) and this package's page config; on a
 * change (debounced) it lints the spec, bundles it and renders the page exactly as `npm run build`
 * does, then reloads the browser. Lint problems are printed but do not stop the preview; a change
 * that does not bundle or render keeps the last good page on screen with the error in a banner.
 * Everything stays in a temporary directory: neither `openapi/dist` nor `dist/` is touched.
 *
 * Options: `--port <n>` (default 8081, 0 for any free port), `--root <dir>` (the repository root
 * whose `redocly.yaml` and `openapi/` to use; default this repository).
 *
 * @module
 */
import { watch } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseApiOrigins } from './lib/api-origins.mjs';
import { changelogData, changelogPage } from './lib/changelog-page.mjs';
import { startDevServer } from './lib/dev-server.mjs';
import { postmanCollection } from './lib/postman-collection.mjs';
import { redocly } from './lib/redocly.mjs';
import { DOCS_CONFIG, PAGE_TEMPLATE, renderPage } from './lib/render-page.mjs';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8081' },
    root: { type: 'string', default: fileURLToPath(new URL('../../../', import.meta.url)) },
  },
});
const root = resolve(values.root);
const specDir = join(root, 'openapi');
const lintConfig = join(root, 'redocly.yaml');
const port = Number(values.port);
// The console of the preview may call these too (the API of a reference server on another port).
const apiOrigins = parseApiOrigins(process.env.DOCS_API_ORIGINS);
/** The API alias of the root redocly.yaml, as `@institution-api/openapi` bundles it. */
const api = 'users@v1';
const debounceMs = 150;

const work = await mkdtemp(join(tmpdir(), 'institution-docs-dev-'));
const site = join(work, 'site');
const staging = join(work, 'staging');
await mkdir(site);

/** @type {any} the bundle of the last good build, which the header's files are made from */
let lastBundle;
/** @type {Map<string, Promise<string>>} each header file, made at most once per build */
const madeOnce = new Map();
/**
 * @param {string} path
 * @param {(document: any) => string} make
 */
const madeFrom = (path, make) => () => {
  if (lastBundle === undefined) {
    return Promise.reject(new Error('The first build is not done yet.'));
  }
  const current = lastBundle;
  let made = madeOnce.get(path);
  if (!made) {
    made = Promise.resolve().then(() => make(current));
    madeOnce.set(path, made);
  }
  return made;
};
const server = await startDevServer({
  dir: site,
  port,
  // What the page's header links, made when asked for: the collection of the previewed spec, and
  // its changelog against this repository's last release (a second or so: never beside a build).
  made: {
    '/institution-api.postman_collection.json': {
      type: 'application/json',
      make: madeFrom(
        '/institution-api.postman_collection.json',
        (bundle) => `${JSON.stringify(postmanCollection(bundle), null, 2)}\n`,
      ),
    },
    '/changelog.html': {
      type: 'text/html; charset=utf-8',
      make: madeFrom('/changelog.html', (bundle) =>
        // The releases are this repository's (released/, the CHANGELOG); the working contract is
        // the one previewed, which `--root` may take from elsewhere.
        changelogPage(changelogData({ revision: join(specDir, 'openapi.yaml') }), {
          title: bundle.info.title,
          description: `What changed in the ${bundle.info.title}, version by version.`,
        }),
      ),
    },
  },
});
let builds = 0;

/** Lint (reported, never fatal), bundle, render into staging, then swap into the served dir. */
async function build() {
  const started = performance.now();
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging);

  const lint = await redocly(['lint', '--config', lintConfig, api], root);
  if (lint.code !== 0) console.log(`\n${lint.output}\n(lint problems do not stop the preview)`);

  for (const format of ['yaml', 'json']) {
    const bundled = await redocly(
      ['bundle', api, '--config', lintConfig, '--output', join(staging, `openapi.${format}`)],
      root,
    );
    if (bundled.code !== 0) throw new Error(`redocly bundle failed:\n${bundled.output}`);
  }
  const { info } = JSON.parse(await readFile(join(staging, 'openapi.json'), 'utf8'));
  const { bytes } = await renderPage({
    spec: join(staging, 'openapi.yaml'),
    specJson: join(staging, 'openapi.json'),
    apiOrigins,
    output: join(staging, 'index.html'),
    description: info?.summary ?? info?.title ?? '',
  });
  for (const file of ['openapi.yaml', 'openapi.json', 'index.html']) {
    await rename(join(staging, file), join(site, file));
  }
  builds += 1;
  server.announceBuild(String(builds));
  console.log(
    `${time()} built in ${Math.round(performance.now() - started)} ms (${bytes} bytes): ${server.url}`,
  );
  lastBundle = JSON.parse(await readFile(join(site, 'openapi.json'), 'utf8'));
  madeOnce.clear();
}

let running = false;
let again = false;
/** @type {NodeJS.Timeout | undefined} */
let timer;

/** Runs builds one at a time; changes during a build cause exactly one more. */
async function rebuild() {
  if (running) {
    again = true;
    return;
  }
  running = true;
  try {
    do {
      again = false;
      try {
        await build();
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        console.error(`${time()} build failed; still serving the last good page.\n${message}`);
        server.announceFailure(message);
      }
    } while (again);
  } finally {
    running = false;
  }
}

/** @param {string} path */
function schedule(path) {
  console.log(`${time()} changed: ${path}`);
  clearTimeout(timer);
  timer = setTimeout(rebuild, debounceMs);
}

const watchers = [
  watch(specDir, { recursive: true }, (_event, file) => {
    const path = file ? String(file) : '';
    // openapi/dist is the package build's output, not a source.
    if (path === 'dist' || path.startsWith(`dist${sep}`) || path.includes('node_modules')) return;
    schedule(relative(root, join(specDir, path)));
  }),
  ...[lintConfig, DOCS_CONFIG, PAGE_TEMPLATE].map((file) =>
    watch(file, () => schedule(relative(root, file))),
  ),
];

console.log(`docs:dev watching ${relative(process.cwd(), specDir) || specDir} — first build…`);
await rebuild();
console.log(`docs:dev serving ${server.url} (Ctrl+C to stop)`);

for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM'])) {
  process.once(signal, async () => {
    for (const watcher of watchers) watcher.close();
    clearTimeout(timer);
    await server.close();
    await rm(work, { recursive: true, force: true });
    process.exit(0);
  });
}

function time() {
  return new Date().toLocaleTimeString();
}
