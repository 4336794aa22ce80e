/**
 * RFC 9421 message signatures on Web Crypto (`globalThis.crypto.subtle`), for browsers, edge
 * workers, Deno and Bun (the spec's security scheme `MessageSignature`). Same inputs give the
 * same headers and verdicts as `message-signature-node.ts`. No `node:` imports here or in
 * anything imported from here; a test enforces it.
 *
 * @module
 */
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
import { subtle } from './subtle-crypto.js';

const utf8 = new TextEncoder();

async function digestOf(algorithm: ContentDigestAlgorithm, body: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(
    await subtle().digest(CONTENT_DIGEST_HASH[algorithm].web, new Uint8Array(body)),
  );
}

function importKey(secretKey: string | Uint8Array): Promise<CryptoKey> {
  return subtle().importKey(
    'raw',
    hmacKeyBytes(secretKey),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign', 'verify'],
  );
}

/**
 * The `Content-Digest`, `Signature-Input` and `Signature` fields of a request: HMAC-SHA256 over
 * its RFC 9421 signature base, covering `@method`, `@path` and, with a body, `content-digest`
 * (spec: security scheme `MessageSignature`). Each call has a new nonce unless one is given.
 */
export async function signMessage(
  message: MessageToSign,
  options: MessageSignatureOptions,
): Promise<MessageSignatureHeaders> {
  const key = await importKey(options.secretKey);
  const body = bodyBytes(message.body);
  const algorithm = options.digest ?? 'sha-256';
  const digest =
    body === undefined
      ? undefined
      : formatContentDigest(algorithm, await digestOf(algorithm, body));
  const plan = planMessageSignature(message, options, digest);
  const mac = await subtle().sign('HMAC', key, utf8.encode(plan.base));
  return finishMessageSignature(plan, new Uint8Array(mac));
}

/**
 * Checks the message signature a request carries for `options.keyId` (see
 * `verifyMessageSignatureSync` in `@institution-api/signing/node`); `crypto.subtle.verify`
 * compares the MAC in constant time.
 */
export async function verifyMessageSignature(
  message: ReceivedMessage,
  options: VerifyMessageSignatureOptions,
): Promise<MessageSignatureVerdict> {
  const read = readMessageSignature(message, options);
  if (read.status !== 'ready') return read;
  let digestMatches = true;
  if (read.contentDigest !== undefined) {
    const claims = parseContentDigest(read.contentDigest);
    digestMatches = claims !== undefined;
    for (const [algorithm, claimed] of claims ?? []) {
      const actual = await digestOf(algorithm, message.body);
      if (!sameBytes(claimed, actual)) digestMatches = false;
    }
  }
  const key = await importKey(options.secretKey);
  const macMatches = await subtle().verify(
    'HMAC',
    key,
    new Uint8Array(read.mac),
    utf8.encode(read.base),
  );
  return verdictOf(read, digestMatches, macMatches);
}

/** A digest is no secret: a plain comparison is enough. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}
