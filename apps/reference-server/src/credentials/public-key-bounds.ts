/**
 * What a public key may be (spec: `InstitutionSignature`, "Keys"): at most 128 visible ASCII
 * characters without `:` (which ends it in the Authorization header). Issued keys are 27
 * (generate-credential.ts), and INSTITUTION_CREDENTIALS may provision no longer one; so a longer
 * key presented in a request is no one's, and is refused as an unknown key is, before any lookup
 * or cache entry (credential-cache.ts): a made-up key of 16 KB costs no more than a short one.
 */
export const maxPublicKeyLength = 128;

/** Visible ASCII without ':'. */
export const publicKeyPattern = /^[\x21-\x39\x3b-\x7e]+$/;
