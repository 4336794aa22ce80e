/**
 * Byte/text conversions for messages and signatures, written out by hand so the Web Crypto
 * entry point needs neither `Buffer` nor `atob`/`btoa` (whose decoders are lenient about
 * whitespace and padding, which a strict verifier must not be).
 *
 * @module
 */
import { DIGEST_BYTES, type SignatureOptions } from './algorithms.js';

const utf8 = new TextEncoder();

/**
 * Both implementations accept the same two message types and reject everything else with
 * the same error; node:crypto would otherwise quietly accept other views and strings in other
 * encodings.
 */
export function assertMessage(message: unknown): asserts message is string | Uint8Array {
  if (typeof message !== 'string' && !(message instanceof Uint8Array)) {
    throw new TypeError('message must be a string or a Uint8Array');
  }
}

/**
 * The signature covers bytes, not characters: strings are UTF-8 encoded, exactly as the
 * client puts them on the wire ("Authentication" section of the spec). Byte input is used
 * as is, which is what a server holding the raw request body needs.
 */
export function messageBytes(message: string | Uint8Array): Uint8Array<ArrayBuffer> {
  assertMessage(message);
  if (typeof message === 'string') return utf8.encode(message);
  // Web Crypto's types accept only ArrayBuffer-backed views; copy the rare shared ones.
  return message.buffer instanceof ArrayBuffer
    ? (message as Uint8Array<ArrayBuffer>)
    : new Uint8Array(message);
}

const HEX_DIGITS = '0123456789abcdef';

/** Lowercase, as the spec writes the signature. */
export function bytesToHex(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) out += HEX_DIGITS.charAt(byte >> 4) + HEX_DIGITS.charAt(byte & 15);
  return out;
}

const BASE64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Padded standard base64 (RFC 4648 §4), the form node's `digest('base64')` and OpenSSL emit. */
export function bytesToBase64(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const rest = bytes.length - i;
    const n = ((bytes[i] ?? 0) << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    out +=
      BASE64_ALPHABET.charAt(n >> 18) +
      BASE64_ALPHABET.charAt((n >> 12) & 63) +
      (rest > 1 ? BASE64_ALPHABET.charAt((n >> 6) & 63) : '=') +
      (rest > 2 ? BASE64_ALPHABET.charAt(n & 63) : '=');
  }
  return out;
}

/**
 * The exact shape of a valid signature for given options. Canonical base64 fixes the length,
 * the padding and the unused low bits of the last character (only `[AQgw]` before `==`, only
 * every fourth letter before `=`), so no two strings decode to the same MAC.
 */
export function signaturePattern(options: Required<SignatureOptions>): RegExp {
  const bytes = DIGEST_BYTES[options.algorithm];
  return options.encoding === 'hex' ? hexPattern(bytes) : canonicalBase64Pattern(bytes);
}

function hexPattern(byteLength: number): RegExp {
  return new RegExp(`^[0-9a-f]{${byteLength * 2}}$`);
}

function canonicalBase64Pattern(byteLength: number): RegExp {
  const full = Math.floor(byteLength / 3) * 4;
  const c = '[A-Za-z0-9+/]';
  switch (byteLength % 3) {
    case 1:
      return new RegExp(`^${c}{${full + 1}}[AQgw]==$`);
    case 2:
      return new RegExp(`^${c}{${full + 2}}[AEIMQUYcgkosw048]=$`);
    default:
      return new RegExp(`^${c}{${full}}$`);
  }
}

const PATTERNS = new Map<string, RegExp>();

function cachedPattern(options: Required<SignatureOptions>): RegExp {
  const id = `${options.algorithm}/${options.encoding}`;
  let pattern = PATTERNS.get(id);
  if (pattern === undefined) {
    pattern = signaturePattern(options);
    PATTERNS.set(id, pattern);
  }
  return pattern;
}

/** Whether `signature` is exactly the canonical text of a MAC for these options. */
export function isWellFormedSignature(
  signature: unknown,
  options: Required<SignatureOptions>,
): signature is string {
  return typeof signature === 'string' && cachedPattern(options).test(signature);
}

/**
 * Strictly decodes a presented signature, so verification compares bytes and there is exactly
 * one accepted spelling per MAC (uppercase hex, missing padding, whitespace, URL-safe
 * alphabet or stray low bits are all refused). Returns null instead of throwing because the
 * input comes from an untrusted header.
 */
export function decodeSignature(
  signature: unknown,
  options: Required<SignatureOptions>,
): Uint8Array<ArrayBuffer> | null {
  if (!isWellFormedSignature(signature, options)) return null;
  return options.encoding === 'hex' ? hexToBytes(signature) : base64ToBytes(signature);
}

/** Only called on input already validated by {@link isWellFormedSignature}. */
function hexToBytes(hex: string): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) {
    out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  }
  return out;
}

/** Only called on input already validated by {@link isWellFormedSignature}. */
function base64ToBytes(text: string): Uint8Array<ArrayBuffer> {
  const data = text.replace(/=+$/, '');
  const out = new Uint8Array(Math.floor((data.length * 6) / 8));
  let buffer = 0;
  let bits = 0;
  let o = 0;
  for (const char of data) {
    buffer = ((buffer << 6) | BASE64_ALPHABET.indexOf(char)) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (buffer >> bits) & 0xff;
    }
  }
  return out;
}
