/**
 * The console's budget (scripts/lib/console-bundle.mjs): a bundle over it fails the build. The
 * bundle is made by esbuild, a program of its own (so the system tier).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bundleConsole, CONSOLE_BUDGET_GZIP_BYTES } from '../scripts/lib/console-bundle.mjs';

const document = JSON.parse(readFileSync(new URL('../dist/openapi.json', import.meta.url), 'utf8'));

describe('bundleConsole', () => {
  it(`fails the build above ${CONSOLE_BUDGET_GZIP_BYTES} bytes gzipped`, async () => {
    const heavy = structuredClone(document);
    // Random text does not compress: 100 kB of it in an example the console carries.
    heavy.components.examples.MomoAccountUser.value.firstName =
      randomBytes(75_000).toString('base64');
    await expect(bundleConsole(heavy)).rejects.toThrow(
      new RegExp(
        `^the docs console is \\d+ bytes gzipped, over its budget of ${CONSOLE_BUDGET_GZIP_BYTES}$`,
      ),
    );
  });
});
