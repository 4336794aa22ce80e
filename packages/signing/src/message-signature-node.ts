/**
 * RFC 9421 message signatures on `node:crypto`, synchronous (the spec's security scheme
 * `MessageSignature`). Same inputs give the same headers and verdicts as
 * `message-signature-web.ts`; both are tested on the published vectors.
 *
 * @module
 */
import { createHmac, hash, type KeyObject, timingSafeEqual } from 'node:crypto';
import { bytesToBase64 } from './encoding.js';
import {
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
  type SignaturePlanner,
  type VerifyMessageSignatureOptions,
  verdictOf,
} from './message-signature.js';

/**
 * The body's digest in padded standard base64, by node:crypto's one-shot `hash`: no Hash object
 * and no Buffer per body, each of which cost more than hashing a body of a few hundred bytes.
 */
function digestOf(algorithm: ContentDigestAlgorithm, body: string | Uint8Array): string {
  return hash(CONTENT_DIGEST_HASH[algorithm].node, body, 'base64');
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
  return signWith(message, options.digest, hmacKeyBytes(options.secretKey), (request, digest) =>
    planMessageSignature(request, options, digest),
  );
}

/**
 * The node:crypto half of a signature (the body's digest and the MAC) around `plan`, which makes
 * the rest; `createMessageSigner` gives a prepared key and planner.
 */
export function signWith(
  message: MessageToSign,
  digest: ContentDigestAlgorithm = 'sha-256',
  key: KeyObject | Uint8Array,
  plan: SignaturePlanner,
): MessageSignatureHeaders {
  // A string body is hashed as UTF-8 by node:crypto itself: the bytes `bodyBytes` would give.
  const contentDigest =
    message.body === undefined
      ? undefined
      : formatContentDigest(digest, digestOf(digest, message.body));
  const planned = plan(message, contentDigest);
  return finishMessageSignature(
    planned,
    createHmac('sha256', key).update(planned.base).digest('base64'),
  );
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
  const expected = createHmac('sha256', macKey(options.secretKey)).update(read.base).digest();
  return verdictOf(read, digestMatches, sameMac(read.mac, expected));
}

/**
 * The HMAC key as node:crypto takes it fastest: a string key as the string itself (node:crypto
 * uses its UTF-8 bytes, which `hmacKeyBytes` would give), 4-5 times cheaper per call than the same
 * bytes as a Uint8Array; raw key bytes as `hmacKeyBytes` checks them.
 */
function macKey(secretKey: string | Uint8Array): string | Uint8Array {
  if (typeof secretKey !== 'string') return hmacKeyBytes(secretKey);
  if (secretKey.length === 0) throw new TypeError('secretKey must be a non-empty string');
  return secretKey;
}

/** Every digest the field claims (of the algorithms supported) equals the body's. */
function contentDigestMatches(field: string, body: Uint8Array): boolean {
  // The field as every signer writes it, one SHA-256 member, is the body's without parsing it:
  // the dictionary it parses to claims exactly that digest. Any other spelling is parsed.
  if (field === formatContentDigest('sha-256', digestOf('sha-256', body))) return true;
  const claims = parseContentDigest(field);
  if (claims === undefined) return false;
  // A digest of the body the client sent is no secret: compared as text (canonical base64 of the
  // claimed bytes), not in constant time as the MACs are.
  for (const [algorithm, claimed] of claims) {
    if (bytesToBase64(claimed) !== digestOf(algorithm, body)) return false;
  }
  return true;
}

/** Constant time; a MAC of the wrong length still costs one comparison. */
function sameMac(presented: Uint8Array, expected: Buffer): boolean {
  if (presented.length === expected.length) return timingSafeEqual(presented, expected);
  timingSafeEqual(expected, expected);
  return false;
}
