/**
 * The signature on Web Crypto (`globalThis.crypto.subtle`), so the same code runs on
 * Node >= 20.19, Deno, Bun, browsers and edge workers. No `node:` imports here or in
 * anything imported from here; a test enforces it.
 *
 * @module
 */
import {
  assertSecretKey,
  resolveOptions,
  type SignatureAlgorithm,
  type SignatureOptions,
  WEB_CRYPTO_HASH,
} from './algorithms.js';
import { bytesToBase64, bytesToHex, decodeSignature, messageBytes } from './encoding.js';
import { bodyText, queryText } from './json.js';
import { subtle } from './subtle-crypto.js';

/**
 * Importing a CryptoKey costs about as much as the HMAC itself, and a client or server uses
 * one or a few secrets for its lifetime, so imported keys are cached. The cache is a small
 * LRU so a server with many institutions cannot grow it without bound. Caching keeps the
 * secrets (as map keys) and their non-extractable CryptoKeys in memory for the life of the
 * process; they are in memory anyway (configuration), so that is acceptable.
 */
export const KEY_CACHE_LIMIT = 64;

const keyCache = new Map<string, Promise<CryptoKey>>();

function hmacKey(secretKey: string, algorithm: SignatureAlgorithm): Promise<CryptoKey> {
  // Algorithms never contain ':', so the pair maps to the cache key unambiguously.
  const id = `${algorithm}:${secretKey}`;
  const cached = keyCache.get(id);
  if (cached !== undefined) {
    keyCache.delete(id);
    keyCache.set(id, cached);
    return cached;
  }
  const imported = subtle().importKey(
    'raw',
    messageBytes(secretKey),
    { name: 'HMAC', hash: WEB_CRYPTO_HASH[algorithm] },
    false,
    ['sign', 'verify'],
  );
  keyCache.set(id, imported);
  // A failed import must not poison the cache for later calls.
  imported.catch(() => {
    if (keyCache.get(id) === imported) keyCache.delete(id);
  });
  if (keyCache.size > KEY_CACHE_LIMIT) {
    const oldest = keyCache.keys().next().value;
    if (oldest !== undefined) keyCache.delete(oldest);
  }
  return imported;
}

/** Drops every cached CryptoKey, e.g. after rotating secrets or to measure uncached cost. */
export function clearKeyCache(): void {
  keyCache.clear();
}

/** Number of cached CryptoKeys; exposed so tests can check the bound. */
export function keyCacheSize(): number {
  return keyCache.size;
}

/**
 * HMAC of the exact bytes of `message` (a string is UTF-8 encoded first) with the UTF-8
 * bytes of `secretKey`, encoded as lowercase hex (default) or canonical base64. This is the
 * whole signature scheme ("Authentication" section of the spec); everything else here is
 * built on it. Equal to `printf '%s' "$message" | openssl dgst -sha256 -hmac "$secretKey"`.
 */
export async function sign(
  message: string | Uint8Array,
  secretKey: string,
  options?: SignatureOptions,
): Promise<string> {
  const { algorithm, encoding } = resolveOptions(options);
  assertSecretKey(secretKey);
  const data = messageBytes(message);
  const key = await hmacKey(secretKey, algorithm);
  const mac = new Uint8Array(await subtle().sign('HMAC', key, data));
  return encoding === 'hex' ? bytesToHex(mac) : bytesToBase64(mac);
}

/**
 * Serializes `body` with `JSON.stringify` and signs that text. The caller must send exactly
 * `text` (not re-serialize the body), because the server verifies the raw bytes it receives
 * ("Authentication" section of the spec).
 */
export async function signBody(
  body: unknown,
  secretKey: string,
  options?: SignatureOptions,
): Promise<{ text: string; signature: string }> {
  const text = bodyText(body);
  return { text, signature: await sign(text, secretKey, options) };
}

/**
 * Signs `JSON.stringify(query)`, which a GET request signs (spec: `InstitutionSignature`)
 * (there is no body to sign). No GET operation exists yet; this keeps the rule in one place
 * for when one does.
 */
export async function signQuery(
  query: Record<string, unknown>,
  secretKey: string,
  options?: SignatureOptions,
): Promise<{ text: string; signature: string }> {
  const text = queryText(query);
  return { text, signature: await sign(text, secretKey, options) };
}

/**
 * Checks a presented signature against the raw bytes received, in constant time:
 * `crypto.subtle.verify` compares MACs in constant time by specification. The signature is
 * decoded strictly first (lowercase hex only, canonical base64 only, exact length), so there
 * is exactly one accepted spelling per MAC. Returns false, never throws, for a malformed or
 * wrong signature, because it is untrusted input; throws only for programming or
 * configuration errors (bad options, empty secret, non-bytes message), never with the secret
 * or the expected signature in the message.
 */
export async function verify(
  message: string | Uint8Array,
  signature: string,
  secretKey: string,
  options?: SignatureOptions,
): Promise<boolean> {
  const resolved = resolveOptions(options);
  assertSecretKey(secretKey);
  const data = messageBytes(message);
  const presented = decodeSignature(signature, resolved);
  if (presented === null) return false;
  const key = await hmacKey(secretKey, resolved.algorithm);
  return subtle().verify('HMAC', key, presented, data);
}
