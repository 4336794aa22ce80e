/**
 * `@institution-api/signing/signer` for runtimes without the `node` export condition (browsers,
 * edge workers): the Web Crypto HMAC, asynchronous ("Authentication" section of the spec; same
 * results as `signer-node.ts`, both tested on the published test vectors). No `node:` imports
 * here or in anything imported from here; a test enforces it.
 *
 * @module
 */
import { assertSecretKey, resolveOptions, type SignatureOptions } from './algorithms.js';
import { hmacKeyBytes } from './message-signature.js';
import { signMessage } from './message-signature-web.js';
import type { MessageSigner, MessageSignerOptions, Signer, SignerRuntime } from './signer.js';
import { sign } from './web-crypto.js';

export type { MessageSigner, MessageSignerOptions, Signer, SignerRuntime } from './signer.js';

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

/**
 * A {@link MessageSigner} on Web Crypto: checks the key id and secret once (throws for empty
 * ones, never with the secret in the message), then gives a `Promise` of each request's headers.
 */
export function createMessageSigner(options: MessageSignerOptions): MessageSigner {
  hmacKeyBytes(options.secretKey);
  if (typeof options.keyId !== 'string' || options.keyId.length === 0) {
    throw new TypeError('keyId must be a non-empty string');
  }
  return (message) => signMessage(message, options);
}
