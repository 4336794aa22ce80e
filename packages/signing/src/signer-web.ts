/**
 * `@institution-api/signing/signer` for runtimes without the `node` export condition (browsers,
 * edge workers): the Web Crypto HMAC, asynchronous ("Authentication" section of the spec; same
 * results as `signer-node.ts`, both tested on the published test vectors). No `node:` imports
 * here or in anything imported from here; a test enforces it.
 *
 * @module
 */
import { assertSecretKey, resolveOptions, type SignatureOptions } from './algorithms.js';
import type { Signer, SignerRuntime } from './signer.js';
import { sign } from './web-crypto.js';

export type { Signer, SignerRuntime } from './signer.js';

/** This entry point's implementation: Web Crypto. */
export const SIGNER_RUNTIME: SignerRuntime = 'web-crypto';

/**
 * A {@link Signer} for one secret and one set of options, checked once here: throws a
 * `TypeError`/`RangeError` for an empty secret or unknown options (never with the values in
 * the message). The returned function gives a `Promise` of the signature; the imported
 * `CryptoKey` is cached (see `sign`).
 */
export function createSigner(secretKey: string, options?: SignatureOptions): Signer {
  const resolved = resolveOptions(options);
  assertSecretKey(secretKey);
  return (message) => sign(message, secretKey, resolved);
}
