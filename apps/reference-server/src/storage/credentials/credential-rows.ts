/**
 * The key pairs' rows as both engines read and write them (migrations 0002_credential_lifecycle),
 * and the decisions both engines take about them alike: what provisioning does with a stored pair,
 * and whether the stored secrets open with the keys given. Each engine reads the rows, asks these
 * functions, and writes what they say in the same transaction.
 */
import {
  type CredentialKeyring,
  EncryptionKeyError,
  encryptionKeyVariable,
  previousEncryptionKeyVariable,
} from '../../credentials/encryption-key.js';
import { openSecret, type SealedSecret, sealSecret } from '../../credentials/secret-box.js';
import type {
  CredentialEvent,
  CredentialRecord,
  FoundCredential,
  InstitutionCredential,
  IssueOptions,
  SignaturePolicy,
} from '../types.js';

/** The secret of a row: in clear (written before migration 0002, until sealed) or sealed. */
export interface SecretColumns {
  plaintext_secret: string | null;
  secret_key_id: string | null;
  secret_nonce: Uint8Array | null;
  secret_ciphertext: Uint8Array | null;
  secret_tag: Uint8Array | null;
}

/** A key pair's row with its institution's name; timestamps as the engine reads them. */
export interface CredentialRow extends SecretColumns {
  public_key: string;
  institution_id: string;
  institution: string;
  created_at: unknown;
  expires_at: unknown;
  revoked_at: unknown;
  revoked_reason: string | null;
  last_used_at: unknown;
  signature_policy: SignaturePolicy;
}

/** The columns of {@link CredentialRow}: credentials `c` joined with institutions `i`. */
export const credentialRowColumns = `c.public_key, c.institution_id, i.name AS institution,
  c.plaintext_secret, c.secret_key_id, c.secret_nonce, c.secret_ciphertext, c.secret_tag,
  c.created_at, c.expires_at, c.revoked_at, c.revoked_reason, c.last_used_at, c.signature_policy`;

/** An event before the database gave it its time. */
export type PendingEvent = Omit<CredentialEvent, 'at'>;

/** An event's row (table credential_events). */
export interface EventRow {
  at: unknown;
  public_key: string;
  institution: string;
  what: CredentialEvent['what'];
  reason: string | null;
  actor: string;
}

/** An event as `credentials log` shows it. */
export function toEvent(row: EventRow): CredentialEvent {
  return {
    at: toDate(row.at) as Date,
    publicKey: row.public_key,
    institution: row.institution,
    what: row.what,
    reason: row.reason,
    actor: row.actor,
  };
}

/** A pair's policy as the reason of the event that gave it (nothing for the default, `any`). */
function policyReason(policy: SignaturePolicy | undefined): string | undefined {
  return policy === 'message-signature' ? 'requires message signatures' : undefined;
}

/** The reason of an event that changed a pair's policy from `from` to `to`. */
function policyChangeReason(from: SignaturePolicy, to: SignaturePolicy): string {
  return policyReason(to) ?? `message signatures no longer required (was ${from})`;
}

/** The event of a new pair: `issued`, or `rotated` for a rotation's. */
export function issuedEvent(
  credential: InstitutionCredential,
  options: IssueOptions,
): PendingEvent {
  const reasons = [
    options.reason,
    policyReason(credential.signaturePolicy),
    options.expiresAt && `expires at ${options.expiresAt.toISOString()}`,
    options.rotation &&
      `the institution's other keys expire at ${options.rotation.othersExpireAt.toISOString()} at the latest`,
  ].filter((reason): reason is string => typeof reason === 'string' && reason !== '');
  return {
    publicKey: credential.publicKey,
    institution: credential.institution,
    what: options.rotation ? 'rotated' : 'issued',
    reason: reasons.length > 0 ? reasons.join('; ') : null,
    actor: options.actor,
  };
}

/** The event of a pair a rotation set to expire. */
export function expirySetEvent(
  publicKey: string,
  institution: string,
  expiresAt: Date,
  actor: string,
): PendingEvent {
  return {
    publicKey,
    institution,
    what: 'expiry-set',
    reason: `rotation: expires at ${expiresAt.toISOString()}`,
    actor,
  };
}

/** A timestamp as either engine reads it (SQLite: ISO 8601 text; pg: a Date). */
export function toDate(value: unknown): Date | null {
  if (value === null || value === undefined) return null;
  return value instanceof Date ? value : new Date(value as string);
}

/** A row as `credentials list` shows it. */
export function toCredentialRecord(row: CredentialRow): CredentialRecord {
  return {
    publicKey: row.public_key,
    institution: row.institution,
    createdAt: toDate(row.created_at) as Date,
    expiresAt: toDate(row.expires_at),
    revokedAt: toDate(row.revoked_at),
    revokedReason: row.revoked_reason,
    lastUsedAt: toDate(row.last_used_at),
    signaturePolicy: row.signature_policy,
  };
}

/** A row as authentication needs it, its secret decrypted. */
export function toFoundCredential(row: CredentialRow, keyring: CredentialKeyring): FoundCredential {
  return {
    institutionId: row.institution_id,
    institution: row.institution,
    secretKey: secretOf(row, keyring),
    expiresAt: toDate(row.expires_at),
    revokedAt: toDate(row.revoked_at),
    signaturePolicy: row.signature_policy,
  };
}

/** The row's secret: decrypted, or as stored in clear by an earlier version. */
function secretOf(row: CredentialRow, keyring: CredentialKeyring): string {
  return row.plaintext_secret ?? openSecret(keyring, row.public_key, sealedOf(row));
}

function sealedOf(row: SecretColumns): SealedSecret {
  const { secret_key_id, secret_nonce, secret_ciphertext, secret_tag } = row;
  if (!secret_key_id || !secret_nonce || !secret_ciphertext || !secret_tag) {
    throw new Error('A credential row has neither a secret in clear nor a sealed one.');
  }
  return {
    keyId: secret_key_id,
    nonce: secret_nonce,
    ciphertext: secret_ciphertext,
    tag: secret_tag,
  };
}

/** The values of the four sealed columns, in their order in {@link SecretColumns}. */
export function sealedValues(sealed: SealedSecret): [string, Uint8Array, Uint8Array, Uint8Array] {
  return [sealed.keyId, sealed.nonce, sealed.ciphertext, sealed.tag];
}

/** What a write of a pair's row sets: its institution, its secret sealed, its policy. */
export interface CredentialWrite {
  publicKey: string;
  institutionId: string;
  sealed: SealedSecret;
  signaturePolicy: SignaturePolicy;
}

/** One write of provisioning: a new pair, or a stored one given another secret or institution. */
export interface ProvisionWrite extends CredentialWrite {
  isNew: boolean;
  /** Recorded once the write is done. */
  event: PendingEvent;
}

/**
 * What provisioning does with each pair of INSTITUTION_CREDENTIALS, given the stored rows of those
 * public keys and the ids of their institutions: a new pair is added; a revoked or expired one is
 * left as it is, refused (an event says so each start, and the caller logs a warning); another
 * secret or institution replaces the stored one; another signature policy alone is `policy-changed`
 * (a pair without one is `any`: taking `messageSignature` out of the variable is a change too);
 * the same pair changes nothing.
 */
export function planProvisioning(
  list: InstitutionCredential[],
  stored: ReadonlyMap<string, CredentialRow>,
  institutionIds: ReadonlyMap<string, string>,
  context: { keyring: CredentialKeyring; actor: string; now: Date },
): { writes: ProvisionWrite[]; skipped: PendingEvent[] } {
  const writes: ProvisionWrite[] = [];
  const skipped: PendingEvent[] = [];
  for (const { institution, publicKey, secretKey, signaturePolicy = 'any' } of list) {
    const institutionId = institutionIds.get(institution);
    if (institutionId === undefined) throw new Error(`No id for institution ${institution}`);
    const event = (what: PendingEvent['what'], reason: string | null = null): PendingEvent => ({
      publicKey,
      institution,
      what,
      reason,
      actor: context.actor,
    });
    const write = (isNew: boolean, what: PendingEvent['what'], reason?: string) =>
      writes.push({
        publicKey,
        institutionId,
        sealed: sealSecret(context.keyring.current, publicKey, secretKey),
        signaturePolicy,
        isNew,
        event: event(what, reason),
      });
    const row = stored.get(publicKey);
    if (!row) {
      write(true, 'provisioned', policyReason(signaturePolicy));
      continue;
    }
    const policyChanged =
      row.signature_policy !== signaturePolicy
        ? policyChangeReason(row.signature_policy, signaturePolicy)
        : undefined;
    const revokedAt = toDate(row.revoked_at);
    const expiresAt = toDate(row.expires_at);
    if (revokedAt) {
      skipped.push(event('provision-skipped', `revoked at ${revokedAt.toISOString()}`));
    } else if (expiresAt && expiresAt <= context.now) {
      skipped.push(event('provision-skipped', `expired at ${expiresAt.toISOString()}`));
    } else if (row.institution_id !== institutionId) {
      const moved = `moved from institution ${row.institution}`;
      write(false, 'secret-replaced', policyChanged ? `${moved}; ${policyChanged}` : moved);
    } else if (secretOf(row, context.keyring) !== secretKey) {
      write(false, 'secret-replaced', policyChanged);
    } else if (policyChanged) {
      write(false, 'policy-changed', policyChanged);
    }
  }
  return { writes, skipped };
}

/** One write of {@link planSealing}: a row's secret sealed with the current key. */
export interface SealWrite {
  publicKey: string;
  sealed: SealedSecret;
}

/**
 * Checks every stored secret against the keyring and says which to (re)seal: each secret in clear
 * (`encrypted`), and with `reencrypt` each sealed with the previous key (`reencrypted`). Every
 * sealed secret is opened, so a wrong key is known by its id and a row that does not decrypt by
 * its failed GCM tag; either throws EncryptionKeyError, one line naming key ids, never a key.
 */
export function planSealing(
  rows: (SecretColumns & { public_key: string; institution: string })[],
  context: { keyring: CredentialKeyring; actor: string; reencrypt: boolean },
): { writes: SealWrite[]; events: PendingEvent[]; sealedPlaintext: boolean } {
  const { keyring, actor, reencrypt } = context;
  const writes: SealWrite[] = [];
  const events: PendingEvent[] = [];
  const unknownKeyIds = new Set<string>();
  let sealedPlaintext = false;
  for (const row of rows) {
    const publicKey = row.public_key;
    const event = (what: PendingEvent['what'], reason: string | null = null) =>
      events.push({ publicKey, institution: row.institution, what, reason, actor });
    if (row.plaintext_secret !== null) {
      writes.push({
        publicKey,
        sealed: sealSecret(keyring.current, publicKey, row.plaintext_secret),
      });
      event('encrypted', `with key ${keyring.current.id}`);
      sealedPlaintext = true;
      continue;
    }
    const sealed = sealedOf(row);
    const known = sealed.keyId === keyring.current.id || sealed.keyId === keyring.previous?.id;
    if (!known) {
      unknownKeyIds.add(sealed.keyId);
      continue;
    }
    let secret: string;
    try {
      secret = openSecret(keyring, publicKey, sealed);
    } catch (error) {
      throw new EncryptionKeyError((error as Error).message);
    }
    if (reencrypt && sealed.keyId !== keyring.current.id) {
      writes.push({ publicKey, sealed: sealSecret(keyring.current, publicKey, secret) });
      event('reencrypted', `from key ${sealed.keyId} to key ${keyring.current.id}`);
    }
  }
  if (unknownKeyIds.size > 0) throw wrongKeyError([...unknownKeyIds], keyring);
  return { writes, events, sealedPlaintext };
}

function wrongKeyError(stored: string[], keyring: CredentialKeyring): EncryptionKeyError {
  const given = [
    `${keyring.current.source ?? encryptionKeyVariable} has key id ${keyring.current.id}`,
    ...(keyring.previous
      ? [`${previousEncryptionKeyVariable} has key id ${keyring.previous.id}`]
      : []),
  ];
  return new EncryptionKeyError(
    `The stored secret keys are encrypted with key id ${stored.join(', ')}, but ${given.join(' and ')}: ` +
      `start with the key they were encrypted with (to change keys, give the old one as ${previousEncryptionKeyVariable} and run \`credentials reencrypt\`).`,
  );
}
