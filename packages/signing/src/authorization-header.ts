/**
 * The `Authorization: <publicKey>:<signature>` header ("Authentication" section of the
 * spec). Pure string handling, shared by the Web Crypto and the node:crypto entry points.
 *
 * @module
 */
import { resolveOptions, type SignatureOptions } from './algorithms.js';
import { isWellFormedSignature } from './encoding.js';

/**
 * The key pair an institution is issued. The public key identifies the caller in the header;
 * the secret key only ever feeds the HMAC and never leaves the process.
 */
export interface Credentials {
  publicKey: string;
  secretKey: string;
}

/** The two halves of a well-formed `Authorization` header value. */
export interface ParsedAuthorization {
  publicKey: string;
  signature: string;
}

/**
 * Visible ASCII except `:`. The spec only promises that a public key never contains `:`
 * (it is the separator); whitespace and control characters are refused as well because they
 * would be trimmed or rejected by HTTP stacks, and CR/LF would allow header injection, so a
 * key with them could never round-trip through a real request.
 */
const PUBLIC_KEY = /^[\x21-\x39\x3b-\x7e]+$/;

/** Alphabet of both encodings; formatAuthorization checks only this, not the length. */
const SIGNATURE_CHARS = /^[A-Za-z0-9+/=]+$/;

/**
 * Builds the header value `${publicKey}:${signature}` ("Authentication" section of the
 * spec). Accepts the full {@link Credentials} so callers need not pick the field out (the
 * secret is ignored). Throws on a public key that {@link parseAuthorization} would refuse,
 * so a client cannot send a header the server can never accept. Error messages never contain
 * the given values.
 */
export function formatAuthorization(
  credentialsOrPublicKey: string | Credentials | Pick<Credentials, 'publicKey'>,
  signature: string,
): string {
  const publicKey =
    typeof credentialsOrPublicKey === 'string'
      ? credentialsOrPublicKey
      : credentialsOrPublicKey?.publicKey;
  if (typeof publicKey !== 'string' || publicKey.length === 0) {
    throw new TypeError('publicKey must be a non-empty string');
  }
  if (publicKey.includes(':')) {
    throw new TypeError("publicKey must not contain ':' (it separates key and signature)");
  }
  if (!PUBLIC_KEY.test(publicKey)) {
    throw new TypeError('publicKey must consist of visible ASCII characters only');
  }
  if (typeof signature !== 'string' || !SIGNATURE_CHARS.test(signature)) {
    throw new TypeError('signature must be a non-empty hex or base64 string');
  }
  return `${publicKey}:${signature}`;
}

/**
 * Strictly splits an `Authorization` header value into public key and signature: exactly
 * one `:`, a non-empty public key of visible ASCII, and a signature of exactly the alphabet
 * and length the options produce (`[0-9a-f]{64}` for the default). Surrounding whitespace is
 * not tolerated, because a lenient parser on the server would accept requests a second,
 * stricter implementation rejects, which is exactly the disagreement this package exists to
 * prevent. Returns null, never throws, on a malformed header (it is untrusted input); throws
 * only on invalid options, which are a configuration error.
 *
 * A null result says nothing about authenticity: call `verify` / `verifySync` next.
 */
export function parseAuthorization(
  header: string | null | undefined,
  options?: SignatureOptions,
): ParsedAuthorization | null {
  const resolved = resolveOptions(options);
  if (typeof header !== 'string') return null;
  const colon = header.indexOf(':');
  if (colon <= 0 || header.indexOf(':', colon + 1) !== -1) return null;
  const publicKey = header.slice(0, colon);
  const signature = header.slice(colon + 1);
  if (!PUBLIC_KEY.test(publicKey)) return null;
  if (!isWellFormedSignature(signature, resolved)) return null;
  return { publicKey, signature };
}
