/**
 * `npm run build`: the published docs site in `dist/`, from the bundled spec of
 * `@institution-api/openapi`:
 *
 * - `dist/index.html`, Redoc with its scripts, styles and the spec inlined (nothing is fetched
 *   when it is opened; see `lib/offline.mjs`), and the "Try it" console (`console/`, see
 *   `lib/console-bundle.mjs`), which may call the page's own origin, plus those named in
 *   `DOCS_API_ORIGINS` (see `lib/api-origins.mjs`);
 * - `dist/openapi.yaml` and `dist/openapi.json`, the bundled spec, which the page's download
 *   links point to (relative links, so they work from a file and at the reference server's /docs);
 * - `dist/institution-api.postman_collection.json`, the Postman collection of the bundle (see
 *   `lib/postman-collection.mjs`), linked from the page's header;
 * - `dist/changelog.html`, the contract's changes in words, per version and not yet released, from
 *   the breaking-change gate's comparison (see `lib/changelog-page.mjs`), linked from the header;
 * - `dist/llms.txt` and `dist/llms/*.md`, the docs for agents: an index (llmstxt.org) and a
 *   Markdown page per operation and for signing, generated from the spec (see
 *   `lib/agent-pages.mjs`).
 *
 * @module
 */
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { agentPages } from './lib/agent-pages.mjs';
import { parseApiOrigins } from './lib/api-origins.mjs';
import { changelogData, changelogPage } from './lib/changelog-page.mjs';
import { findExternalFetches } from './lib/offline.mjs';
import { COLLECTION_FILE, postmanCollection } from './lib/postman-collection.mjs';
import { renderPage } from './lib/render-page.mjs';
import { bundledSpecFiles } from './lib/spec-files.mjs';

const started = performance.now();
const apiOrigins = parseApiOrigins(process.env.DOCS_API_ORIGINS);
const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const spec = bundledSpecFiles();

await rm(dist, { recursive: true, force: true });
await mkdir(dist, { recursive: true });
await copyFile(spec.yaml, `${dist}openapi.yaml`);
await copyFile(spec.json, `${dist}openapi.json`);

const document = JSON.parse(await readFile(spec.json, 'utf8'));
await writeFile(
  `${dist}${COLLECTION_FILE}`,
  `${JSON.stringify(postmanCollection(document), null, 2)}\n`,
);
const { info } = document;
const page = await renderPage({
  spec: `${dist}openapi.yaml`,
  specJson: `${dist}openapi.json`,
  output: `${dist}index.html`,
  description: info.summary ?? info.title,
  apiOrigins,
});

const changelogStarted = performance.now();
const changelog = changelogPage(changelogData(), {
  title: info.title,
  description: `What changed in the ${info.title}, version by version.`,
});
const fetches = findExternalFetches(changelog, { redoc: false });
if (fetches.length > 0) {
  throw new Error(`the changelog page would fetch from the network:\n- ${fetches.join('\n- ')}`);
}
await writeFile(`${dist}changelog.html`, changelog);
const changelogMs = Math.round(performance.now() - changelogStarted);

const pages = agentPages(document);
for (const [path, text] of pages) {
  await mkdir(dirname(`${dist}${path}`), { recursive: true });
  await writeFile(`${dist}${path}`, text);
}

console.log(
  `docs: dist/index.html ${page.bytes} bytes, self-contained; its console ${page.console.bytes} ` +
    `bytes, ${page.console.gzipBytes} gzipped` +
    `${apiOrigins.length > 0 ? `, may call ${apiOrigins.join(', ')}` : ''} ` +
    `(redocly build-docs ${Math.round(page.redoclyMs)} ms, changelog ${changelogMs} ms, total ${Math.round(performance.now() - started)} ms); ` +
    `for agents: ${[...pages.keys()].join(', ')}`,
);
