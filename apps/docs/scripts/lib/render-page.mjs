/**
 * Renders the docs page: `redocly build-docs --inlineBundle` with this package's Redoc options
 * and page template, then {@link inlineCdnAssets}, {@link hashRouterLinks} and the
 * {@link findExternalFetches} check.
 * Shared by the build (`scripts/build.mjs`) and the preview (`scripts/dev.mjs`).
 *
 * @module
 */
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hashRouterLinks } from './hash-links.mjs';
import { findExternalFetches, inlineCdnAssets } from './offline.mjs';

const packageDir = fileURLToPath(new URL('../../', import.meta.url));
const redoclyCli = join(
  dirname(createRequire(import.meta.url).resolve('@redocly/cli/package.json')),
  'bin/cli.js',
);

/** The Redoc options (download links, layout) of the page: Redocly's `openapi` config key. */
export const DOCS_CONFIG = join(packageDir, 'redocly.yaml');
/** Redoc's default page template plus a content security policy, a description and an icon. */
export const PAGE_TEMPLATE = join(packageDir, 'templates/page.hbs');

/**
 * Builds one page from a bundled spec. Telemetry is switched off here, whatever the caller's
 * environment says (the common brief: REDOCLY_TELEMETRY=off wherever Redocly runs).
 *
 * @param {{ spec: string; output: string; description: string }} page the bundled spec (YAML or
 *   JSON), where to write the page, and the meta description (the spec's info.summary)
 * @returns {Promise<{ bytes: number; redoclyMs: number }>} the page's size, and how long
 *   `redocly build-docs` itself took
 * @throws {Error} with Redocly's output when it fails, or the list of what would be fetched
 */
export async function renderPage({ spec, output, description }) {
  const started = performance.now();
  await run(process.execPath, [
    redoclyCli,
    'build-docs',
    spec,
    '--config',
    DOCS_CONFIG,
    '--lint-config',
    'error',
    '--template',
    PAGE_TEMPLATE,
    `--templateOptions.description=${description}`,
    '--inlineBundle',
    '--output',
    output,
  ]);
  const redoclyMs = performance.now() - started;

  const html = hashRouterLinks(inlineCdnAssets(await readFile(output, 'utf8')));
  const problems = findExternalFetches(html);
  if (problems.length > 0) {
    throw new Error(`the docs page would fetch from the network:\n- ${problems.join('\n- ')}`);
  }
  await writeFile(output, html);
  return { bytes: Buffer.byteLength(html), redoclyMs };
}

/**
 * Runs a command with Redocly's telemetry and update notices off; its output is shown only when
 * it fails (it is otherwise a Node 20 end-of-life box and a success line).
 *
 * @param {string} command
 * @param {string[]} args
 * @returns {Promise<void>}
 */
function run(command, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: packageDir,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve();
      else reject(new Error(`redocly build-docs failed (exit ${code}):\n${output}`));
    });
  });
}
