import type { InstitutionCredential, SignaturePolicy } from '../storage/types.js';
import { publicKeyPattern } from './public-key-bounds.js';

/** The environment variable the credentials come from (spec Assumptions, "Credentials"). */
const source = 'INSTITUTION_CREDENTIALS';

/** Shorter secrets are too easy to guess; generateCredential issues 43 random characters. */
export const minimumSecretKeyLength = 16;

const fields = ['institution', 'publicKey', 'secretKey'] as const;

/** The optional field that sets a pair's signature policy, and its values. */
const messageSignatureField = 'messageSignature';
const messageSignatureValues: Record<string, SignaturePolicy> = {
  required: 'message-signature',
  optional: 'any',
};

/**
 * Reads INSTITUTION_CREDENTIALS, a JSON array of `{ "institution", "publicKey", "secretKey" }`, each
 * optionally with `"messageSignature": "required"` (the pair's policy is then `message-signature`:
 * its requests need a valid RFC 9421 message signature) or `"optional"` (the default: policy
 * `any`), and lists every problem at once, each naming the index and field. No message ever repeats a value
 * (not even JSON.parse's, which quotes the input): the input holds secrets, and messages reach logs.
 */
export function parseInstitutionCredentials(json: string): InstitutionCredential[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new Error(`${source} is not valid JSON (expected an array of objects).`);
  }
  if (!Array.isArray(parsed)) {
    throw new Error(`${source} must be a JSON array of { institution, publicKey, secretKey }.`);
  }
  const problems: string[] = [];
  const firstIndexByPublicKey = new Map<string, number>();
  const credentials: InstitutionCredential[] = [];
  parsed.forEach((item: unknown, index) => {
    const at = `${source}[${index}]`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      problems.push(`${at} must be an object with institution, publicKey and secretKey.`);
      return;
    }
    const record = item as Record<string, unknown>;
    const before = problems.length;
    // Unknown keys are not named: a misplaced secret could be one.
    const known: readonly string[] = [...fields, messageSignatureField];
    if (Object.keys(record).some((key) => !known.includes(key))) {
      problems.push(
        `${at} has unknown fields; the fields are institution, publicKey, secretKey and (optional) messageSignature.`,
      );
    }
    const messageSignature = record[messageSignatureField];
    const signaturePolicy =
      typeof messageSignature === 'string' &&
      Object.hasOwn(messageSignatureValues, messageSignature)
        ? messageSignatureValues[messageSignature]
        : undefined;
    if (messageSignature !== undefined && signaturePolicy === undefined) {
      problems.push(`${at}.messageSignature must be "required" or "optional".`);
    }
    for (const field of fields) {
      const value = record[field];
      if (typeof value !== 'string' || value.trim() === '') {
        problems.push(`${at}.${field} must be a non-empty string.`);
      } else if (value.includes('\u0000')) {
        // PostgreSQL text cannot hold it: the server would fail to start on this entry.
        problems.push(`${at}.${field} must not contain the character U+0000.`);
      }
    }
    const { institution, publicKey, secretKey } = record;
    // Its length is checked against the database (long-public-keys.ts): an earlier release's
    // longer key, stored already, is provisioned again.
    if (typeof publicKey === 'string' && publicKey !== '' && !publicKeyPattern.test(publicKey)) {
      problems.push(`${at}.publicKey must be visible ASCII characters without ":".`);
    }
    if (typeof secretKey === 'string' && secretKey.trim() !== '') {
      if (secretKey.length < minimumSecretKeyLength) {
        problems.push(`${at}.secretKey must be at least ${minimumSecretKeyLength} characters.`);
      }
    }
    if (typeof publicKey === 'string') {
      const first = firstIndexByPublicKey.get(publicKey);
      if (first !== undefined) {
        problems.push(`${at}.publicKey repeats the publicKey of ${source}[${first}].`);
      } else {
        firstIndexByPublicKey.set(publicKey, index);
      }
    }
    if (problems.length === before) {
      credentials.push({
        institution: (institution as string).trim(),
        publicKey: publicKey as string,
        secretKey: secretKey as string,
        ...(signaturePolicy ? { signaturePolicy } : {}),
      });
    }
  });
  if (problems.length > 0) throw new Error(`Invalid ${source}:\n${problems.join('\n')}`);
  return credentials;
}
