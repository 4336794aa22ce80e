/**
 * RFC 9421 message signatures on `node:crypto`, synchronous (the spec's security scheme
 * `MessageSignature`). Same inputs give the same headers and verdicts as
 * `message-signature-web.ts`; both are tested on the published vectors.
 *
 * @module
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import {
  bodyBytes,
  CONTENT_DIGEST_HASH,
  type ContentDigestAlgorithm,
  finishMessageSignature,
  formatContentDigest,
  hmacKeyBytes,
  type MessageSignatureHeaders,
  type MessageSignatureOptions,
  type MessageSignatureVerdict,
  type MessageToSign,
  parseContentDigest,
  planMessageSignature,
  type ReceivedMessage,
  readMessageSignature,
  type VerifyMessageSignatureOptions,
  verdictOf,
} from './message-signature.js';

function digestOf(algorithm: ContentDigestAlgorithm, body: Uint8Array): Buffer {
  return createHash(CONTENT_DIGEST_HASH[algorithm].node).update(body).digest();
}

/**
 * The `Content-Digest`, `Signature-Input` and `Signature` fields of a request: HMAC-SHA256 over
 * its RFC 9421 signature base, covering `@method`, `@path` and, with a body, `content-digest`
 * (spec: security scheme `MessageSignature`). Each call has a new nonce unless one is given.
 */
export function signMessageSync(
  message: MessageToSign,
  options: MessageSignatureOptions,
): MessageSignatureHeaders {
  const key = hmacKeyBytes(options.secretKey);
  const body = bodyBytes(message.body);
  const algorithm = options.digest ?? 'sha-256';
  const digest = body && formatContentDigest(algorithm, digestOf(algorithm, body));
  const plan = planMessageSignature(message, options, digest);
  return finishMessageSignature(plan, createHmac('sha256', key).update(plan.base).digest());
}

/**
 * Checks the message signature a request carries for `options.keyId`: the rules of the spec's
 * `MessageSignature` scheme, the `Content-Digest` against the exact body bytes, and the MAC in
 * constant time. `absent` when the request carries none; whether that is acceptable is the key
 * pair's policy, and whether the nonce is new is the caller's store.
 */
export function verifyMessageSignatureSync(
  message: ReceivedMessage,
  options: VerifyMessageSignatureOptions,
): MessageSignatureVerdict {
  const read = readMessageSignature(message, options);
  if (read.status !== 'ready') return read;
  const digestMatches =
    read.contentDigest === undefined || contentDigestMatches(read.contentDigest, message.body);
  const expected = createHmac('sha256', hmacKeyBytes(options.secretKey)).update(read.base).digest();
  return verdictOf(read, digestMatches, sameMac(read.mac, expected));
}

/** Every digest the field claims (of the algorithms supported) equals the body's. */
function contentDigestMatches(field: string, body: Uint8Array): boolean {
  const claims = parseContentDigest(field);
  if (claims === undefined) return false;
  for (const [algorithm, claimed] of claims) {
    const actual = digestOf(algorithm, body);
    if (claimed.length !== actual.length || !timingSafeEqual(claimed, actual)) return false;
  }
  return true;
}

/** Constant time; a MAC of the wrong length still costs one comparison. */
function sameMac(presented: Uint8Array, expected: Buffer): boolean {
  if (presented.length === expected.length) return timingSafeEqual(presented, expected);
  timingSafeEqual(expected, expected);
  return false;
}
