/**
 * `@institution-api/signing/signer` where the runtime resolves the `node` export condition
 * (Node, Deno, Bun): a synchronous `node:crypto` HMAC, several times cheaper than Web Crypto
 * on Node, where every `crypto.subtle` call is an asynchronous job ("Authentication" section
 * of the spec; same results as `signer-web.ts`, both tested on the published test vectors).
 *
 * @module
 */
import { createHmac } from 'node:crypto';
import { assertSecretKey, resolveOptions, type SignatureOptions } from './algorithms.js';
import { assertMessage } from './encoding.js';
import type { Signer, SignerRuntime } from './signer.js';

export type { Signer, SignerRuntime } from './signer.js';

/** This entry point's implementation: `node:crypto`. */
export const SIGNER_RUNTIME: SignerRuntime = 'node:crypto';

/**
 * A {@link Signer} for one secret and one set of options, checked once here: throws a
 * `TypeError`/`RangeError` for an empty secret or unknown options (never with the values in
 * the message). The returned function gives the signature synchronously.
 */
export function createSigner(secretKey: string, options?: SignatureOptions): Signer {
  const { algorithm, encoding } = resolveOptions(options);
  assertSecretKey(secretKey);
  return (message) => {
    assertMessage(message);
    // A string key is used as its UTF-8 bytes, as Web Crypto and `openssl -hmac` do; a string
    // message is encoded natively (faster than TextEncoder first, same bytes: JSON.stringify
    // output is always well-formed, and lone surrogates become U+FFFD either way).
    return createHmac(algorithm, secretKey).update(message).digest(encoding);
  };
}
