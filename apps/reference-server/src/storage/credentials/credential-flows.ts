/**
 * The key pairs' lifecycle (spec: "Assumptions", credentials), written once for both databases:
 * provisioning, issue and rotation, revocation, sealing the secrets, and the reads. Each database
 * gives its statements ({@link CredentialStatements}) and its transactions
 * ({@link CredentialDatabase}); what a flow decides, in which order it writes, and which events
 * it records are here, and the decisions about rows are in credential-rows.ts.
 */
import type { CredentialKeyring } from '../../credentials/encryption-key.js';
import { type SealedSecret, sealSecret } from '../../credentials/secret-box.js';
import { type Answer, type Flow, step } from '../flow.js';
import type { CredentialEvent, IssuedCredential, RevokedCredential, Storage } from '../types.js';
import {
  type CredentialRow,
  type CredentialWrite,
  type EventRow,
  expirySetEvent,
  issuedEvent,
  type PendingEvent,
  planProvisioning,
  planSealing,
  toCredentialRecord,
  toEvent,
  toFoundCredential,
} from './credential-rows.js';

/** One database's statements on the key pairs, inside one of its write transactions. */
export interface CredentialStatements {
  /** The id of the institution with this name; with `create`, made when new. */
  institutionId(name: string, create: boolean): Answer<string | undefined>;
  /**
   * The rows of these public keys (every row without), locked until the transaction ends, in
   * public-key order where the database locks rows one by one (SQLite's write lock holds them all).
   */
  lockRows(publicKeys?: string[]): Answer<CredentialRow[]>;
  /** The rows of these public keys that exist. */
  rows(publicKeys: string[]): Answer<CredentialRow[]>;
  /** Adds a pair; throws when its public key exists, unless `ifAbsent` (then false). */
  insert(write: CredentialWrite, expiresAt: Date | null, ifAbsent: boolean): Answer<boolean>;
  /** Gives a stored pair another institution, secret and policy; false when it is not stored. */
  replace(write: CredentialWrite): Answer<boolean>;
  /** Stores a pair's secret sealed anew, its copy in clear (if any) cleared. */
  seal(publicKey: string, sealed: SealedSecret): Answer<void>;
  /**
   * Sets the institution's other pairs that are not revoked and would expire later (or never) to
   * expire `at`; their public keys.
   */
  expireOthers(institutionId: string, publicKey: string, at: Date): Answer<string[]>;
  /** Revokes the pair now, unless it is revoked already; whether it did. */
  revoke(publicKey: string, reason: string | null): Answer<boolean>;
  /** Records the events, in order; each with the time the database gave it. */
  recordEvents(events: PendingEvent[]): Answer<CredentialEvent[]>;
}

/** One database's side of the key pairs: its transactions, and what runs outside them. */
export interface CredentialDatabase {
  /** Runs `flow` on the database's statements in one write transaction. */
  transaction<Result>(flow: (statements: CredentialStatements) => Flow<Result>): Promise<Result>;
  /** The row of this public key. */
  findRow(publicKey: string): Promise<CredentialRow | undefined>;
  /** Every row (of one institution, by name), oldest first. */
  listRows(institution: string | null): Promise<CredentialRow[]>;
  /** Every event's row (of one institution, by name), oldest first. */
  listEvents(institution: string | null): Promise<EventRow[]>;
  /** Sets a pair's "last used" to now. */
  recordUse(publicKey: string): Promise<void>;
  countInstitutions(): Promise<number>;
  longestPublicKey(): Promise<number>;
  /** Once secrets stored in clear were sealed: clears the copies the database still keeps. */
  forgetPlaintext?(): void;
}

/** The key pairs' calls of the {@link Storage} on `db`; secrets are sealed with `keyring`. */
export function credentialStorage(db: CredentialDatabase, keyring: CredentialKeyring) {
  return {
    async findCredential(publicKey) {
      const row = await db.findRow(publicKey);
      return row ? toFoundCredential(row, keyring) : null;
    },

    upsertCredentials: (list, actor = 'start') =>
      db.transaction(function* (sql): Flow<CredentialEvent[]> {
        const institutionIds = new Map<string, string>();
        for (const name of new Set(list.map((credential) => credential.institution))) {
          const id = yield* step(sql.institutionId(name, true));
          if (id) institutionIds.set(name, id);
        }
        const rows = yield* step(sql.lockRows(list.map((credential) => credential.publicKey)));
        const stored = new Map(rows.map((row) => [row.public_key, row]));
        const plan = planProvisioning(list, stored, institutionIds, {
          keyring,
          actor,
          now: new Date(),
        });
        const done: PendingEvent[] = [];
        for (const write of plan.writes) {
          // A server starting at the same moment may have added the same pair meanwhile.
          const written = yield* step(
            write.isNew ? sql.insert(write, null, true) : sql.replace(write),
          );
          if (written) done.push(write.event);
        }
        return yield* step(sql.recordEvents([...done, ...plan.skipped]));
      }),

    issueCredential: (credential, options) =>
      db.transaction(function* (sql): Flow<IssuedCredential | null> {
        const { institution, publicKey, secretKey } = credential;
        // A rotation's institution must exist; an issue makes a new one.
        const institutionId = yield* step(sql.institutionId(institution, !options.rotation));
        if (!institutionId) return null;
        const write = {
          publicKey,
          institutionId,
          sealed: sealSecret(keyring.current, publicKey, secretKey),
          signaturePolicy: credential.signaturePolicy ?? 'any',
        };
        yield* step(sql.insert(write, options.expiresAt, false));
        const pending = [issuedEvent(credential, options)];
        let expiringKeys: string[] = [];
        if (options.rotation) {
          const at = options.rotation.othersExpireAt;
          expiringKeys = (yield* step(sql.expireOthers(institutionId, publicKey, at))).sort();
          for (const key of expiringKeys) {
            pending.push(expirySetEvent(key, institution, at, options.actor));
          }
        }
        const rows = yield* step(sql.rows([publicKey, ...expiringKeys]));
        const records = new Map(rows.map((row) => [row.public_key, toCredentialRecord(row)]));
        const issued = records.get(publicKey);
        if (!issued) throw new Error(`Credential ${publicKey} vanished inside its transaction`);
        return {
          issued,
          expiring: expiringKeys.flatMap((key) => records.get(key) ?? []),
          events: yield* step(sql.recordEvents(pending)),
        };
      }),

    revokeCredential: (publicKey, { actor, reason }) =>
      db.transaction(function* (sql): Flow<RevokedCredential | null> {
        const revoked = yield* step(sql.revoke(publicKey, reason));
        const [row] = yield* step(sql.rows([publicKey]));
        if (!row) return null;
        const event: PendingEvent = {
          publicKey,
          institution: row.institution,
          what: 'revoked',
          reason,
          actor,
        };
        const events = revoked ? yield* step(sql.recordEvents([event])) : [];
        return { record: toCredentialRecord(row), alreadyRevoked: !revoked, events };
      }),

    listCredentials: async (filter = {}) =>
      (await db.listRows(filter.institution ?? null)).map(toCredentialRecord),

    listCredentialEvents: async (filter = {}) =>
      (await db.listEvents(filter.institution ?? null)).map(toEvent),

    recordCredentialUse: (publicKey) => db.recordUse(publicKey),

    async sealCredentialSecrets({ actor, reencrypt }) {
      const context = { keyring, actor, reencrypt };
      // Every start checks the keys; only an upgrade or a re-encryption writes, so only then are
      // the rows locked (a lock on every key pair at every start would be in the way of rotations).
      if (planSealing(await db.listRows(null), context).writes.length === 0) return [];
      const { events, sealedPlaintext } = await db.transaction(function* (sql) {
        // Locked, so that servers starting together seal each secret once.
        const plan = planSealing(yield* step(sql.lockRows()), context);
        for (const { publicKey, sealed } of plan.writes) yield* step(sql.seal(publicKey, sealed));
        const recorded = yield* step(sql.recordEvents(plan.events));
        return { events: recorded, sealedPlaintext: plan.sealedPlaintext };
      });
      if (sealedPlaintext) db.forgetPlaintext?.();
      return events;
    },

    countInstitutions: () => db.countInstitutions(),
    longestPublicKey: () => db.longestPublicKey(),
  } satisfies Partial<Storage>;
}
