#!/usr/bin/env node
/**
 * Size budget for the package's own runtime code: every dist/**\/*.js.
 * Prints raw and gzip bytes (gzip of the concatenation, level 9, as a stand-in for a minified,
 * compressed bundle) and fails above the budget. Dependencies (openapi-fetch, the signing
 * package) are not counted: they have their own sizes.
 *
 * The budget is about 20% above the size measured when it was set; raise it deliberately,
 * in the same commit as the code that needs it.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const BUDGET_GZIP_BYTES = 12_200;

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const entries = await readdir(dist, { recursive: true, withFileTypes: true }).catch(() => {
  console.error('size: dist/ is missing; run npm run build first');
  process.exit(1);
});
const files = entries
  .filter((entry) => entry.isFile() && entry.name.endsWith('.js'))
  .map((entry) => relative(dist, join(entry.parentPath, entry.name)))
  .sort();
const code = Buffer.concat(await Promise.all(files.map((file) => readFile(join(dist, file)))));
const gzip = gzipSync(code, { level: 9 }).length;

console.log(`size: ${files.length} files (${files.join(', ')})`);
console.log(`size: ${code.length} bytes raw, ${gzip} bytes gzip; budget ${BUDGET_GZIP_BYTES} gzip`);
if (gzip > BUDGET_GZIP_BYTES) {
  console.error(`size: over budget by ${gzip - BUDGET_GZIP_BYTES} bytes`);
  process.exit(1);
}
