/**
 * The hash and output encoding of the request signature.
 *
 * The default is HMAC-SHA256 in lowercase hex, but the real Institution Service never
 * documented its hash, so both client and server can be switched to SHA-512 and/or base64
 * without a code change (spec: `InstitutionSignature`; Assumptions, "Signature").
 * The default stays SHA-256 hex everywhere.
 *
 * @module
 */

/**
 * Hash used inside the HMAC. `sha512` exists only because the real service's hash is
 * undocumented; see the "Authentication" section of the spec.
 */
export type SignatureAlgorithm = 'sha256' | 'sha512';

/**
 * Text form of the MAC in the `Authorization` header. `hex` is lowercase only; `base64` is
 * canonical padded standard base64 (RFC 4648 §4). Strict forms so that one MAC has exactly
 * one valid spelling, which keeps the comparison on bytes meaningful.
 */
export type SignatureEncoding = 'hex' | 'base64';

/**
 * Per-deployment choice of hash and encoding. Client and server must be configured with the
 * same values; omitted fields fall back to {@link DEFAULT_SIGNATURE_OPTIONS}.
 */
export interface SignatureOptions {
  algorithm?: SignatureAlgorithm;
  encoding?: SignatureEncoding;
}

/**
 * SHA-256 / lowercase hex: the spec's default (`InstitutionSignature`; Assumptions,
 * "Signature"). Frozen because every caller shares it.
 */
export const DEFAULT_SIGNATURE_OPTIONS: Required<SignatureOptions> = Object.freeze({
  algorithm: 'sha256',
  encoding: 'hex',
});

/** Byte length of the MAC, used to validate presented signatures before comparing. */
export const DIGEST_BYTES: Readonly<Record<SignatureAlgorithm, number>> = Object.freeze({
  sha256: 32,
  sha512: 64,
});

/** Web Crypto spells the hashes differently from node:crypto and OpenSSL. */
export const WEB_CRYPTO_HASH: Readonly<Record<SignatureAlgorithm, 'SHA-256' | 'SHA-512'>> =
  Object.freeze({
    sha256: 'SHA-256',
    sha512: 'SHA-512',
  });

/**
 * Fills in defaults and rejects anything else at runtime, because options usually come from
 * configuration (environment variables), where the type system cannot help. The error names
 * the allowed values but never echoes the given one: a misplaced secret must not end up in a
 * log.
 */
export function resolveOptions(options?: SignatureOptions): Required<SignatureOptions> {
  if (options === undefined) return DEFAULT_SIGNATURE_OPTIONS;
  if (options === null || typeof options !== 'object') {
    throw new TypeError('Signature options must be an object');
  }
  const algorithm = options.algorithm ?? DEFAULT_SIGNATURE_OPTIONS.algorithm;
  const encoding = options.encoding ?? DEFAULT_SIGNATURE_OPTIONS.encoding;
  if (algorithm !== 'sha256' && algorithm !== 'sha512') {
    throw new RangeError("Unsupported signature algorithm: expected 'sha256' or 'sha512'");
  }
  if (encoding !== 'hex' && encoding !== 'base64') {
    throw new RangeError("Unsupported signature encoding: expected 'hex' or 'base64'");
  }
  return { algorithm, encoding };
}

/**
 * Both implementations reject the same bad secrets with the same message, so switching
 * between them never changes behaviour. An empty key is refused because Web Crypto cannot
 * import it and because it can only be a configuration mistake.
 */
export function assertSecretKey(secretKey: unknown): asserts secretKey is string {
  if (typeof secretKey !== 'string' || secretKey.length === 0) {
    throw new TypeError('secretKey must be a non-empty string');
  }
}
