/**
 * `@institution-api/signing/signer` where the runtime resolves the `node` export condition
 * (Node, Deno, Bun): a synchronous `node:crypto` HMAC, several times cheaper than Web Crypto
 * on Node, where every `crypto.subtle` call is an asynchronous job ("Authentication" section
 * of the spec; same results as `signer-web.ts`, both tested on the published test vectors).
 *
 * @module
 */
import { createHmac, createSecretKey } from 'node:crypto';
import { assertSecretKey, resolveOptions, type SignatureOptions } from './algorithms.js';
import { assertMessage } from './encoding.js';
import { hmacKeyBytes, prepareSignaturePlanner } from './message-signature.js';
import { signMessageSync, signWith } from './message-signature-node.js';
import type { MessageSigner, MessageSignerOptions, Signer, SignerRuntime } from './signer.js';

export type { MessageSigner, MessageSignerOptions, Signer, SignerRuntime } from './signer.js';

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
  // The UTF-8 bytes of the secret, as Web Crypto and `openssl -hmac` use them, prepared once:
  // a KeyObject spares each HMAC the conversion of the string.
  const key = createSecretKey(secretKey, 'utf8');
  return (message) => {
    assertMessage(message);
    // A string message is encoded natively (faster than TextEncoder first, same bytes:
    // JSON.stringify output is always well-formed, and lone surrogates become U+FFFD either way).
    return createHmac(algorithm, key).update(message).digest(encoding);
  };
}

/**
 * A {@link MessageSigner} on `node:crypto`: checks the options once (throws for an empty key id
 * or secret, never with the secret in the message), then signs each request synchronously.
 */
export function createMessageSigner(options: MessageSignerOptions): MessageSigner {
  signMessageSync({ method: 'POST', url: 'http://check.invalid/' }, options);
  // Prepared once: the key (converting it per signature was a good part of one) and what
  // every signature shares (see prepareSignaturePlanner).
  const key = createSecretKey(hmacKeyBytes(options.secretKey));
  const plan = prepareSignaturePlanner(options);
  return (message) => signWith(message, options.digest, key, plan);
}
