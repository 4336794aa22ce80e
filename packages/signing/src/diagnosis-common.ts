/**
 * What every part of a diagnosis (signature-diagnosis.ts) shares: the shape of its answer (spec:
 * `SignatureDiagnosis`), its options, the cryptography and budget of one run, and its words for a
 * search given up.
 *
 * @module
 */
import type { SignatureOptions } from './algorithms.js';
import type { DiagnosisBudget, DiagnosisSpending } from './diagnosis-budget.js';
import type { DiagnosisCrypto } from './diagnosis-crypto.js';
import { bytesToHex } from './encoding.js';
import type { MisusedKey } from './misused-keys.js';

/** The mistakes a diagnosis names (spec: `SignatureDiagnosis.cause`). */
export type SignatureDiagnosisCause =
  | 'body-bytes-differ'
  | 'key-misused'
  | 'signature-base-differs'
  | 'authorization-malformed'
  | 'no-known-mistake';

/** Bytes told by their length and SHA-256 (spec: `BodyFingerprint`). */
export interface BodyFingerprint {
  length: number;
  /** Lowercase hex. */
  sha256: string;
}

/** What is wrong with one part of a message signature (spec: `SignatureDiagnosis.component`). */
export interface DiagnosedComponent {
  /** `@path`, `content-digest`, `created`, `nonce`, `keyid`, `alg`, `signature-input`, … */
  name: string;
  problem: 'missing' | 'stale' | 'reused' | 'mismatched' | 'malformed' | 'unsupported';
  /** What the request's signature has for it (never a value that could be a secret). */
  signed?: string;
  /** What was computed for it from the request received. */
  computed?: string;
}

/** The diagnosis of a signature that does not verify (spec: `SignatureDiagnosis`). */
export interface SignatureDiagnosis {
  cause: SignatureDiagnosisCause;
  /** Which of the two signatures: the `Authorization` header's, or the RFC 9421 one. */
  signature: 'authorization' | 'message-signature';
  /** The diagnosis in words, with what to do. */
  explanation: string;
  /** The body as received. */
  body: BodyFingerprint;
  /** `body-bytes-differ`: the bytes the signature is the HMAC of, and how they were written. */
  signedBody?: BodyFingerprint & { form: string };
  /** `key-misused`: what the HMAC was keyed with. */
  key?: MisusedKey;
  /** The RFC 9421 signature base computed from the request received, when there is one. */
  signatureBase?: string;
  /** `signature-base-differs`: the part found wrong, when found. */
  component?: DiagnosedComponent;
}

/** What a diagnosis is made with: the key pair the request's `Authorization` header names. */
export interface DiagnoseSignatureOptions {
  /** The public key of the `Authorization` header (a key the verifier knows). */
  publicKey: string;
  /** Its secret key (its UTF-8 bytes are the HMAC key). */
  secretKey: string;
  /** The `Authorization` signature's algorithm and encoding; SHA-256, hex by default. */
  signature?: SignatureOptions | undefined;
  /** UNIX seconds; the current time when omitted. */
  now?: number | undefined;
  /** How far `created` may be from `now`; 300 s by default. */
  maxSkewSeconds?: number | undefined;
  /** Whether the key pair requires a message signature (its policy is `message-signature`). */
  messageSignatureRequired?: boolean | undefined;
  /** Whether the message signature's nonce was used with this key pair before (the caller's store knows). */
  nonceReused?: boolean | undefined;
  /**
   * One signature only, whatever the other: `authorization` or `message-signature` (a tool that
   * reports on both, as the CLI's `doctor`). Both by default, as a verifier checks them: the
   * first that fails.
   */
  only?: 'authorization' | 'message-signature' | undefined;
  /**
   * Bounds of the diagnosis's work (diagnosis-budget.ts); each one omitted is the default's. A
   * diagnosis that reaches one stops looking and says so, as `no-known-mistake`.
   */
  budget?: Partial<DiagnosisBudget> | undefined;
  /**
   * The orders of the members of the bodies the API documents (its examples' keys, in order): a
   * body signed in one of them and sent in another order (keys sorted) is then found.
   */
  documentedKeyOrders?: readonly (readonly string[])[] | undefined;
}

/** Bytes a sender may have signed instead of those received, what they are, and what to do. */
export interface BodyVariant {
  /** How they differ from the bytes received, short (`compact, keys sorted`). */
  form: string;
  bytes: Uint8Array<ArrayBuffer>;
  /**
   * What they are, as the object of "… is the HMAC of": `the same JSON written otherwise
   * (compact, keys sorted: 612 bytes)`.
   */
  signed: string;
  /** What to change, in words. */
  advice: string;
}

/** What one diagnosis computes with, and the budget it spends. */
export interface DiagnosisRun {
  crypto: DiagnosisCrypto;
  spending: DiagnosisSpending;
}

/** That a diagnosis gave up looking for `what`, and which bound it reached, in words. */
export function gaveUp(spending: DiagnosisSpending, what: string): string {
  return `This service gave up looking for ${what} before trying every known mistake (${spending.words()}: the budget of a diagnosis), so that is not ruled out.`;
}

/** The first variant `matches`; every one is tried until then, in order. */
export async function firstVariant(
  variants: Iterable<BodyVariant>,
  matches: (bytes: Uint8Array<ArrayBuffer>) => Promise<boolean>,
): Promise<BodyVariant | undefined> {
  for (const variant of variants) {
    if (await matches(variant.bytes)) return variant;
  }
  return undefined;
}

/** The length and SHA-256 (hex) of `bytes`, with `crypto`. */
export async function fingerprint(
  crypto: DiagnosisCrypto,
  bytes: Uint8Array,
): Promise<BodyFingerprint> {
  return { length: bytes.length, sha256: bytesToHex(await crypto.digest('sha-256', bytes)) };
}
