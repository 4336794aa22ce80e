/**
 * Renders the docs page: `redocly build-docs --inlineBundle` with this package's Redoc options
 * and page template, then {@link inlineCdnAssets}, {@link hashRouterLinks}, the console
 * ({@link bundleConsole}, with the API origins it may call, {@link allowApiOrigins}) and the
 * {@link findExternalFetches} check.
 * Shared by the build (`scripts/build.mjs`) and the preview (`scripts/dev.mjs`).
 *
 * @module
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { allowApiOrigins } from './api-origins.mjs';
import { bundleConsole, withConsole } from './console-bundle.mjs';
import { hashRouterLinks } from './hash-links.mjs';
import { findExternalFetches, inlineCdnAssets } from './offline.mjs';
import { redocly } from './redocly.mjs';

const packageDir = fileURLToPath(new URL('../../', import.meta.url));

/** The Redoc options (download links, layout) of the page: Redocly's `openapi` config key. */
export const DOCS_CONFIG = join(packageDir, 'redocly.yaml');
/** Redoc's default page template plus a content security policy, a description and an icon. */
export const PAGE_TEMPLATE = join(packageDir, 'templates/page.hbs');

/**
 * Builds one page from a bundled spec. Telemetry is switched off here, whatever the caller's
 * environment says (REDOCLY_TELEMETRY=off wherever Redocly runs: ARCHITECTURE.md, "What the
 * code relies on in its libraries").
 *
 * @param {{ spec: string; specJson: string; output: string; description: string; apiOrigins?: string[] }} page
 *   the bundled spec (YAML or JSON) and the same as JSON (for the console), where to write the
 *   page, the meta description (the spec's info.summary), and the origins besides its own the
 *   console may call (DOCS_API_ORIGINS; none by default)
 * @returns {Promise<{ bytes: number; redoclyMs: number; console: { bytes: number; gzipBytes: number } }>}
 *   the page's size, how long `redocly build-docs` itself took, and the console's share
 * @throws {Error} with Redocly's output when it fails, the list of what would be fetched, or the
 *   console's build error (its budget included)
 */
export async function renderPage({ spec, specJson, output, description, apiOrigins = [] }) {
  const started = performance.now();
  const { code, output: log } = await redocly(
    [
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
    ],
    packageDir,
  );
  if (code !== 0) throw new Error(`redocly build-docs failed (exit ${code}):\n${log}`);
  const redoclyMs = performance.now() - started;

  const consoleBundle = await bundleConsole(JSON.parse(await readFile(specJson, 'utf8')));
  const html = withConsole(
    allowApiOrigins(hashRouterLinks(inlineCdnAssets(await readFile(output, 'utf8'))), apiOrigins),
    consoleBundle.markup,
  );
  const problems = findExternalFetches(html);
  if (problems.length > 0) {
    throw new Error(`the docs page would fetch from the network:\n- ${problems.join('\n- ')}`);
  }
  await writeFile(output, html);
  return {
    bytes: Buffer.byteLength(html),
    redoclyMs,
    console: { bytes: consoleBundle.bytes, gzipBytes: consoleBundle.gzipBytes },
  };
}
