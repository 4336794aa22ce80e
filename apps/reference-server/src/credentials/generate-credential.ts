import { randomBytes } from 'node:crypto';
import type { InstitutionCredential } from '../storage/types.js';

/**
 * A fresh random key pair for an institution (spec Assumptions, "Credentials": a command issues one).
 * The public key is 18 random bytes (24 base64url characters), the secret 32 bytes (43 characters,
 * 256 bits, the HMAC-SHA256 key size). base64url has no ':', which separates the key from the
 * signature in the Authorization header. The prefixes are our own, not Stripe's `sk_live_` or
 * `sk_test_`, so that secret scanners do not take these keys for Stripe keys.
 */
export function generateCredential(institution: string): InstitutionCredential {
  return {
    institution,
    publicKey: `pk_${randomBytes(18).toString('base64url')}`,
    secretKey: `sk_${randomBytes(32).toString('base64url')}`,
  };
}
