/**
 * `@institution-api/signing/node`: the same signature on `node:crypto`, synchronous, for
 * servers that verify inside synchronous middleware (e.g. Express's `express.raw` verify
 * hook) and for CLIs. Same inputs give the same outputs as the Web Crypto functions; both are
 * tested against the published test vectors ("Authentication" section of the spec).
 *
 * @module
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { assertSecretKey, resolveOptions, type SignatureOptions } from './algorithms.js';
import { nodeDiagnosisCrypto } from './diagnosis-crypto-node.js';
import { assertMessage, isWellFormedSignature } from './encoding.js';
import { bodyText, queryText } from './json.js';
import type { ReceivedMessage } from './message-signature.js';
import {
  type DiagnoseSignatureOptions,
  diagnoseSignatureWith,
  type SignatureDiagnosis,
} from './signature-diagnosis.js';

export { type DiagnosisBudget, defaultDiagnosisBudget } from './diagnosis-budget.js';
export { signMessageSync, verifyMessageSignatureSync } from './message-signature-node.js';
export * from './runtime-independent.js';
export {
  type BodyFingerprint,
  bodyFingerprint,
  type DiagnosedComponent,
  type DiagnoseSignatureOptions,
  type MisusedKey,
  type SignatureDiagnosis,
  type SignatureDiagnosisCause,
} from './signature-diagnosis.js';

/**
 * `diagnoseSignature` of `@institution-api/signing` (the same answers, the same budget), its
 * candidates' MACs and digests on node:crypto: a sandbox diagnoses refusals that anyone who
 * knows a public key can send, and a synchronous HMAC costs a fraction of a Web Crypto job.
 */
export function diagnoseSignature(
  message: ReceivedMessage,
  options: DiagnoseSignatureOptions,
): Promise<SignatureDiagnosis | undefined> {
  return diagnoseSignatureWith(nodeDiagnosisCrypto, message, options);
}

function hmac(message: string | Uint8Array, secretKey: string, options?: SignatureOptions) {
  const resolved = resolveOptions(options);
  assertSecretKey(secretKey);
  assertMessage(message);
  // Strings go in unencoded: node:crypto's native UTF-8 encoding (lone surrogates become
  // U+FFFD, like TextEncoder) is about twice as fast as encoding in JavaScript first. A string
  // key is likewise used as its UTF-8 bytes, as Web Crypto and `openssl -hmac` do.
  return { resolved, mac: createHmac(resolved.algorithm, secretKey).update(message) };
}

/**
 * Synchronous {@link sign}: HMAC of the exact bytes of `message` (a string is UTF-8 encoded)
 * with the UTF-8 bytes of `secretKey`, as lowercase hex (default) or canonical base64
 * ("Authentication" section of the spec).
 */
export function signSync(
  message: string | Uint8Array,
  secretKey: string,
  options?: SignatureOptions,
): string {
  const { resolved, mac } = hmac(message, secretKey, options);
  return mac.digest(resolved.encoding);
}

/**
 * Synchronous {@link signBody}: `JSON.stringify(body)` and its signature. Send exactly
 * `text`; the server verifies the raw bytes it receives.
 */
export function signBodySync(
  body: unknown,
  secretKey: string,
  options?: SignatureOptions,
): { text: string; signature: string } {
  const text = bodyText(body);
  return { text, signature: signSync(text, secretKey, options) };
}

/** Synchronous {@link signQuery}: `JSON.stringify(query)` and its signature (GET requests). */
export function signQuerySync(
  query: Record<string, unknown>,
  secretKey: string,
  options?: SignatureOptions,
): { text: string; signature: string } {
  const text = queryText(query);
  return { text, signature: signSync(text, secretKey, options) };
}

/**
 * Synchronous {@link verify}: constant-time check of a presented signature over the raw bytes
 * received. The presented signature must be written strictly (lowercase hex / canonical base64,
 * exact length: one spelling per MAC) and is compared with the MAC's text by `timingSafeEqual`,
 * which is comparing the bytes; if it is malformed, a dummy
 * comparison of equal cost still runs so the timing does not tell a malformed signature from
 * a wrong one. Returns false, never throws, for malformed or wrong signatures; throws only
 * for programming or configuration errors, never with the secret or the expected signature
 * in the message.
 */
export function verifySync(
  message: string | Uint8Array,
  signature: string,
  secretKey: string,
  options?: SignatureOptions,
): boolean {
  const { resolved, mac } = hmac(message, secretKey, options);
  // The MAC as text in the configured encoding: a strictly written signature (lowercase hex,
  // canonical base64, exact length) has one spelling per MAC, so comparing the texts compares
  // the bytes, without decoding the presented one or copying the MAC into a Buffer first.
  const expected = Buffer.from(mac.digest(resolved.encoding), 'latin1');
  if (!isWellFormedSignature(signature, resolved)) {
    timingSafeEqual(expected, expected);
    return false;
  }
  return timingSafeEqual(Buffer.from(signature, 'latin1'), expected);
}
