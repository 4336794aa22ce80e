/**
 * `npm run build`: the published docs site in `dist/`, from the bundled spec of
 * `@institution-api/openapi`:
 *
 * - `dist/index.html`, Redoc with its scripts, styles and the spec inlined (nothing is fetched
 *   when it is opened; see `lib/offline.mjs`);
 * - `dist/openapi.yaml` and `dist/openapi.json`, the bundled spec, which the page's download
 *   links point to (relative links, so they work from a file and at the reference server's /docs).
 *
 * @module
 */
import { copyFile, mkdir, readFile, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { renderPage } from './lib/render-page.mjs';
import { bundledSpecFiles } from './lib/spec-files.mjs';

const started = performance.now();
const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const spec = bundledSpecFiles();

await rm(dist, { recursive: true, force: true });
await mkdir(dist, { recursive: true });
await copyFile(spec.yaml, `${dist}openapi.yaml`);
await copyFile(spec.json, `${dist}openapi.json`);

const { info } = JSON.parse(await readFile(spec.json, 'utf8'));
const { bytes, redoclyMs } = await renderPage({
  spec: `${dist}openapi.yaml`,
  output: `${dist}index.html`,
  description: info.summary ?? info.title,
});

console.log(
  `docs: dist/index.html ${bytes} bytes, self-contained ` +
    `(redocly build-docs ${Math.round(redoclyMs)} ms, total ${Math.round(performance.now() - started)} ms)`,
);
