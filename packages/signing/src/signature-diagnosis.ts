/**
 * Why a request's signature does not verify, as a sandbox tells it (spec: `SignatureDiagnosis`,
 * the `diagnosis` of the `401`; "Assumptions", "Sandbox: why a signature failed"): the known
 * mistakes of a signer are tried one by one against the presented signature, each compared in
 * constant time, and the first that reproduces it is the cause. Shared by the reference server,
 * the mock, the CLI's `doctor` and the docs console, on Web Crypto here (node:crypto in the
 * `./node` entry), so it runs wherever they do.
 *
 * What it says is computed from the request received and never holds the expected signature,
 * the secret key, or anything else only the secret key gives: a cause (a one-bit answer about the
 * signature the sender made), the received body's length and SHA-256, the RFC 9421 signature
 * base (which covers no secret), and the values of the components the request carries, but never
 * a value that could be a secret (a `keyid` that is not the public key, a word before the key).
 *
 * @module
 */
import { diagnoseAuthorization } from './authorization-diagnosis.js';
import { DiagnosisSpending } from './diagnosis-budget.js';
import {
  type BodyFingerprint,
  type DiagnoseSignatureOptions,
  type DiagnosisRun,
  fingerprint,
  type SignatureDiagnosis,
} from './diagnosis-common.js';
import { type DiagnosisCrypto, webDiagnosisCrypto } from './diagnosis-crypto.js';
import type { ReceivedMessage } from './message-signature.js';
import { diagnoseMessageSignature } from './message-signature-diagnosis.js';
import { redactSecret } from './secret-redaction.js';

export type {
  BodyFingerprint,
  DiagnosedComponent,
  DiagnoseSignatureOptions,
  SignatureDiagnosis,
  SignatureDiagnosisCause,
} from './diagnosis-common.js';
export type { MisusedKey } from './misused-keys.js';

/**
 * The diagnosis of a request that a verifier refused, or undefined when both of its signatures
 * hold for this key pair (and its nonce is fresh). The `Authorization` signature is diagnosed
 * first, as it is checked first (authorization-diagnosis.ts):
 * - not `<publicKey>:<signature>` (a scheme word, Basic, spaces, a prefix, another encoding):
 *   `authorization-malformed`, saying what to write, and whether the signature itself is right;
 * - keyed with a misused key (the public key; the secret decoded, cut, or with a newline or
 *   quotes; an empty key; key and message swapped), or not an HMAC: `key-misused`;
 * - the HMAC of other bytes (body-variants.ts: the body in another charset, the same JSON written
 *   otherwise, nothing, "[object Object]", Python's str(), the body before a member was added…):
 *   `body-bytes-differ`;
 * - else `no-known-mistake`.
 * Then the message signature (message-signature-diagnosis.ts), `signature-base-differs` with the
 * signature base and the part found wrong (or `key-misused` when its HMAC was keyed so).
 *
 * Its work is bounded by `options.budget` (diagnosis-budget.ts), whatever the request: the
 * candidates it tries (body variants, signature bases, misused keys), the bytes it writes and
 * hashes for them, the shape of a body it re-serializes (depth, values, size) and its time. Once
 * a bound is reached it stops looking: a mistake not found by then is `no-known-mistake`, whose
 * explanation says that the diagnosis gave up and why. The default budget tries every known
 * mistake on any body of the API's shape, at a few milliseconds of CPU at most.
 */
export function diagnoseSignature(
  message: ReceivedMessage,
  options: DiagnoseSignatureOptions,
): Promise<SignatureDiagnosis | undefined> {
  return diagnoseSignatureWith(webDiagnosisCrypto, message, options);
}

/** {@link diagnoseSignature} computing with `crypto` (the `./node` entry's: node:crypto). */
export async function diagnoseSignatureWith(
  crypto: DiagnosisCrypto,
  message: ReceivedMessage,
  options: DiagnoseSignatureOptions,
): Promise<SignatureDiagnosis | undefined> {
  const run: DiagnosisRun = {
    crypto,
    spending: new DiagnosisSpending(options.budget, crypto.clock),
  };
  const body = await fingerprint(crypto, message.body);
  let diagnosis: SignatureDiagnosis | undefined;
  if (options.only !== 'message-signature') {
    diagnosis = await diagnoseAuthorization(message, body, options, run);
  }
  if (diagnosis === undefined && options.only !== 'authorization') {
    diagnosis = await diagnoseMessageSignature(message, body, options, run);
  }
  return diagnosis === undefined ? undefined : redactSecret(diagnosis, options.secretKey);
}

/** The length and SHA-256 (hex) of `bytes`. */
export function bodyFingerprint(bytes: Uint8Array): Promise<BodyFingerprint> {
  return fingerprint(webDiagnosisCrypto, bytes);
}
