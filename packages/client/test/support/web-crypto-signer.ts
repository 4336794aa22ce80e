import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * The published Web Crypto side of `@institution-api/signing/signer` (its `default` condition's
 * file), which browsers and edge workers resolve. Vitest resolves the `node` side; a test file
 * swaps this one in with
 * `vi.mock('@institution-api/signing/signer', async () => (await import('./support/web-crypto-signer.js')).webCryptoSigner())`.
 */
export async function webCryptoSigner(): Promise<unknown> {
  const manifest = createRequire(import.meta.url).resolve('@institution-api/signing/package.json');
  const { exports } = (await import(pathToFileURL(manifest).href, { with: { type: 'json' } }))
    .default as { exports: Record<string, { default: { default: string } }> };
  const file = join(dirname(manifest), exports['./signer']?.default.default ?? '');
  return import(pathToFileURL(file).href);
}
