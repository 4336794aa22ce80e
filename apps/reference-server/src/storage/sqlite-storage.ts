import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import type { CredentialKeyring } from '../credentials/encryption-key.js';
import { sealSecret } from '../credentials/secret-box.js';
import {
  type CredentialRow,
  credentialRowColumns,
  type EventRow,
  expirySetEvent,
  issuedEvent,
  type PendingEvent,
  planProvisioning,
  planSealing,
  sealedValues,
  toCredentialRecord,
  toEvent,
  toFoundCredential,
} from './credentials/credential-rows.js';
import { sqliteFault } from './health/sqlite-faults.js';
import { guardStorage, type StorageHealthObserver } from './health/unavailable.js';
import { loadMigrations, migrationsDir } from './migrations.js';
import { newId } from './new-id.js';
import { noncePurge } from './nonces/nonce-purge.js';
import { memoryRateLimiter } from './rate-limits/rate-limiters.js';
import { type CheckpointReport, startCheckpointer } from './sqlite-checkpointer.js';
import {
  busyTimeoutMs,
  type GroupCommitHooks,
  groupCommitter,
  migrateSqlite,
  openSqliteDatabase,
  type SqliteOptions,
  walSyncer,
} from './sqlite-database.js';
import {
  type AccountDetails,
  ConflictError,
  type CredentialEvent,
  type CredentialRecord,
  ExistsWithOtherDetailsError,
  type IssuedCredential,
  type RevokedCredential,
  type Storage,
  type StoredUser,
} from './types.js';
import { recognize } from './users/recognition.js';
import {
  type AccountColumns,
  type ColumnCodec,
  prefixedAccountColumns,
  toStoredUser,
  type UserColumns,
  type UserRow,
  userColumnNames,
  userColumnValues,
  userWritableColumns,
} from './users/user-rows.js';

/**
 * SQLite's side of the column types (see migrations/sqlite/): the details document and the
 * documents array are JSON text, timestamps ISO 8601 text.
 */
const sqliteCodec: ColumnCodec<string> = {
  toDocument: (document) => JSON.stringify(document),
  fromDocument: (value) => JSON.parse(value as string) as Record<string, unknown>,
  fromTimestamp: (value) => new Date(value as string),
  fromTextArray: (value) => JSON.parse(value as string) as string[],
};

/** SQLite's constraint error for a UNIQUE index (SQLITE_CONSTRAINT_UNIQUE). */
const uniqueViolation = 2067;

const now = `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`;
/** The columns of {@link UserColumns}, of table `alias`. */
const userColumns = (alias: string) => userColumnNames.map((c) => `${alias}.${c}`).join(', ');
const accountReturning = prefixedAccountColumns('accounts');

/** The first row `statement` gives, typed as the caller knows its columns to be. */
function get<Row>(statement: StatementSync, ...params: SQLInputValue[]): Row | undefined {
  return statement.get(...params) as Row | undefined;
}

/** Every statement the storage runs, prepared once. `?` parameters, in the order written. */
function prepareStatements(db: DatabaseSync) {
  const userPlaceholders = userWritableColumns.map(() => '?').join(', ');
  return {
    // Without a conflict target, DO NOTHING covers both unique keys: the card number (the same
    // person) and the email (taken by someone else); which one it was is read afterwards.
    insertUser: db.prepare(`
      INSERT INTO users (id, ${userWritableColumns.join(', ')}) VALUES (?, ${userPlaceholders})
      ON CONFLICT DO NOTHING
      RETURNING ${userColumns('users')}`),
    insertAccount: db.prepare(`
      INSERT INTO accounts (id, user_id, type, number, network, bank_name, name)
      VALUES (?, ?, ?, ?, ?, ?, ?)
      RETURNING ${accountReturning}`),
    insertMembership: db.prepare(
      'INSERT INTO memberships (institution_id, user_id) VALUES (?, ?) ON CONFLICT DO NOTHING',
    ),
    // institution, card number
    selectByCard: db.prepare(`
      SELECT ${userColumns('u')}, ${prefixedAccountColumns('a')},
        EXISTS (SELECT 1 FROM memberships m WHERE m.user_id = u.id AND m.institution_id = ?)
          AS is_member
      FROM users u LEFT JOIN accounts a ON a.user_id = u.id
      WHERE u.ghana_card_number = ?`),
    // the writable columns, then user, institution
    updateUser: db.prepare(`
      UPDATE users SET ${userWritableColumns.map((column) => `${column} = ?`).join(', ')},
        updated_at = ${now}
      WHERE id = ?
        AND EXISTS (SELECT 1 FROM memberships m WHERE m.user_id = users.id AND m.institution_id = ?)
      RETURNING ${userColumns('users')}`),
    // email, user
    emailTakenByAnother: db.prepare(
      'SELECT EXISTS (SELECT 1 FROM users WHERE lower(email) = lower(?) AND id <> ?) AS taken',
    ),
    // Keeps the account's id and creation time when type and number are unchanged: the same payout
    // account with new details. Any other account replaces it (the new id and time of `excluded`).
    upsertAccount: db.prepare(`
      INSERT INTO accounts (id, user_id, type, number, network, bank_name, name)
      VALUES (?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (user_id) DO UPDATE SET
        id = CASE WHEN accounts.type = excluded.type AND accounts.number = excluded.number
          THEN accounts.id ELSE excluded.id END,
        created_at = CASE WHEN accounts.type = excluded.type AND accounts.number = excluded.number
          THEN accounts.created_at ELSE excluded.created_at END,
        type = excluded.type, number = excluded.number, network = excluded.network,
        bank_name = excluded.bank_name, name = excluded.name
      RETURNING ${accountReturning}`),
    deleteAccount: db.prepare('DELETE FROM accounts WHERE user_id = ?'),
    findCredential: db.prepare(`
      SELECT ${credentialRowColumns}
      FROM credentials c JOIN institutions i ON i.id = c.institution_id
      WHERE c.public_key = ?`),
    // institution name twice: every pair, or one institution's
    listCredentials: db.prepare(`
      SELECT ${credentialRowColumns}
      FROM credentials c JOIN institutions i ON i.id = c.institution_id
      WHERE ? IS NULL OR i.name = ?
      ORDER BY c.created_at, c.public_key`),
    // DO UPDATE rather than DO NOTHING, so that RETURNING gives the existing row's id too.
    upsertInstitution: db.prepare(`
      INSERT INTO institutions (id, name) VALUES (?, ?)
      ON CONFLICT (name) DO UPDATE SET name = excluded.name
      RETURNING id`),
    findInstitution: db.prepare('SELECT id FROM institutions WHERE name = ?'),
    // public key, institution, the four sealed columns, expiry, signature policy
    insertCredential: db.prepare(`
      INSERT INTO credentials (public_key, institution_id, secret_key_id, secret_nonce,
        secret_ciphertext, secret_tag, expires_at, signature_policy)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
    // institution, the four sealed columns, signature policy, public key
    replaceCredential: db.prepare(`
      UPDATE credentials SET institution_id = ?, plaintext_secret = NULL, secret_key_id = ?,
        secret_nonce = ?, secret_ciphertext = ?, secret_tag = ?, signature_policy = ?
      WHERE public_key = ?`),
    // the four sealed columns, public key
    sealSecret: db.prepare(`
      UPDATE credentials SET plaintext_secret = NULL, secret_key_id = ?, secret_nonce = ?,
        secret_ciphertext = ?, secret_tag = ?
      WHERE public_key = ?`),
    // new expiry, institution, the new pair's public key, new expiry again
    expireOthers: db.prepare(`
      UPDATE credentials SET expires_at = ?
      WHERE institution_id = ? AND public_key <> ? AND revoked_at IS NULL
        AND (expires_at IS NULL OR expires_at > ?)
      RETURNING public_key`),
    // reason, public key
    revokeCredential: db.prepare(`
      UPDATE credentials SET revoked_at = ${now}, revoked_reason = ?
      WHERE public_key = ? AND revoked_at IS NULL`),
    recordCredentialUse: db.prepare(
      `UPDATE credentials SET last_used_at = ${now} WHERE public_key = ?`,
    ),
    // public key, nonce, expiry, now: a row expired by now is taken over (changes 1), a live one
    // is left as it is (changes 0).
    claimNonce: db.prepare(`
      INSERT INTO message_signature_nonces (public_key, nonce, expires_at) VALUES (?, ?, ?)
      ON CONFLICT (public_key, nonce) DO UPDATE SET expires_at = excluded.expires_at
        WHERE message_signature_nonces.expires_at <= ?`),
    // public key, nonce, now: whether the nonce is recorded and not expired
    liveNonce: db.prepare(`
      SELECT 1 AS live FROM message_signature_nonces
      WHERE public_key = ? AND nonce = ? AND expires_at > ?`),
    // now, how many at most: the oldest expired nonces, through the index on expires_at
    purgeNonces: db.prepare(`
      DELETE FROM message_signature_nonces WHERE (public_key, nonce) IN (
        SELECT public_key, nonce FROM message_signature_nonces WHERE expires_at <= ?
        ORDER BY expires_at LIMIT ?)`),
    insertEvent: db.prepare(`
      INSERT INTO credential_events (public_key, institution, what, reason, actor)
      VALUES (?, ?, ?, ?, ?)
      RETURNING at`),
    // institution name twice
    listEvents: db.prepare(`
      SELECT at, public_key, institution, what, reason, actor FROM credential_events
      WHERE ? IS NULL OR institution = ?
      ORDER BY id`),
    countInstitutions: db.prepare('SELECT count(*) AS count FROM institutions'),
    ping: db.prepare('SELECT 1'),
  };
}

/** Options of {@link createSqliteStorage} for a database in a file. */
export interface SqliteFileOptions {
  /** The database file `db` was opened on. */
  file: string;
  /** See {@link startCheckpointer}. */
  maxLogFrames?: number;
  minIntervalMs?: number;
  onCheckpoint?: (report: CheckpointReport) => void;
}

/**
 * Takes the disk work off the event loop for a database in a file: commits under
 * synchronous=NORMAL acknowledged after an fsync of the log on libuv's thread pool (walSyncer:
 * the durability of FULL), and checkpoints on a thread of their own (startCheckpointer). Measured
 * at 10 connections of creates: 22–24% more of them per second, and p99 from 18–20 ms to 15–16 ms
 * as the load generator saw it, for 7% more CPU per request (README "Storage").
 */
function offloadDiskWork(db: DatabaseSync, options: SqliteFileOptions) {
  db.exec('PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 0;');
  const syncWal = walSyncer(options.file);
  const checkpointer = startCheckpointer(options.file, {
    busyTimeoutMs,
    maxLogFrames: options.maxLogFrames,
    minIntervalMs: options.minIntervalMs,
    onCheckpoint: options.onCheckpoint,
    // SQLite's own checkpoints again, in the COMMITs: slower, never unbounded.
    onFailure: () => db.exec('PRAGMA wal_autocheckpoint = 1000'),
  });
  const hooks: GroupCommitHooks = {
    beforeGroup: checkpointer.beforeWrite,
    afterCommit(acknowledge, flush) {
      if (flush) syncWal(acknowledge);
      else acknowledge(null);
      checkpointer.afterCommit();
    },
  };
  return {
    hooks,
    async close() {
      await checkpointer.close();
      await syncWal.close();
    },
  };
}

/**
 * The {@link Storage} on the embedded SQLite database (node:sqlite). Every write is synchronous
 * statements in its own savepoint of a group-committed write transaction (see groupCommitter):
 * nothing else runs on the connection meanwhile, and BEGIN IMMEDIATE makes other processes on the
 * same file wait, so a check followed by a write sees no other write in between. Uniqueness is
 * still the schema's (constraints, ON CONFLICT). With `file`, the disk work runs off the event
 * loop (see offloadDiskWork); without, commits are synchronous=FULL as the database was opened.
 * Faults of the disk and of the locks become StorageUnavailableError (sqlite-faults.ts), told to
 * `health`. Secret keys are sealed with `keyring` before they are written (credential-rows.ts).
 */
export function createSqliteStorage(
  db: DatabaseSync,
  keyring: CredentialKeyring,
  file?: SqliteFileOptions,
  health?: StorageHealthObserver,
): Storage {
  const sql = prepareStatements(db);
  const purge = noncePurge();
  /**
   * The nonces this process claimed whose rows are not committed yet (public key and nonce →
   * expiry, ms). The embedded database serves one server process (sqlite-server-lock.ts), so a
   * claim is decided at once, from the table and this map, in one turn of the event loop that no
   * other claim can interleave with; its row is written with the next group commit, most often
   * the request's own write, instead of a commit of its own. The flush that makes the request's
   * write durable makes its nonce durable too (one log, in order); a crash loses only the nonces of
   * requests whose writes it lost too, or that wrote nothing.
   */
  const pendingNonces = new Map<string, number>();
  const offloaded = file && offloadDiskWork(db, file);
  const inTransaction = groupCommitter(db, offloaded?.hooks);

  const insertAccount = (userId: string, account: AccountDetails) =>
    get<AccountColumns>(sql.insertAccount, newId(), userId, ...accountValues(account));
  /** The stored pair with this public key, as `list` shows it (inside a transaction). */
  const record = (publicKey: string) => {
    const row = get<CredentialRow>(sql.findCredential, publicKey);
    if (!row) throw new Error(`Credential ${publicKey} vanished inside its transaction`);
    return toCredentialRecord(row);
  };
  /** Inserts an event; the event with the time the database gave it. */
  const recordEvent = (event: PendingEvent): CredentialEvent => {
    const { publicKey, institution, what, reason, actor } = event;
    const row = get<{ at: string }>(sql.insertEvent, publicKey, institution, what, reason, actor);
    return { ...event, at: new Date(row?.at ?? Date.now()) };
  };

  const storage: Storage = {
    createOrAddUser: (institutionId, details) =>
      inTransaction(() => {
        const values = userColumnValues(details, sqliteCodec);
        const inserted = get<UserColumns>(sql.insertUser, newId(), ...values);
        if (inserted) {
          const account = details.account && insertAccount(inserted.id, details.account);
          sql.insertMembership.run(institutionId, inserted.id);
          return { created: true, user: toStoredUser({ ...inserted, ...account }, sqliteCodec) };
        }
        const existing = get<UserRow & { is_member: number }>(
          sql.selectByCard,
          institutionId,
          details.ghanaCardNumber,
        );
        // In this transaction no other write ran: the card number is free, so the email was taken.
        if (!existing) throw new ConflictError('email');
        const recognition = recognize(
          { isMember: existing.is_member === 1, mobileNumber: existing.mobile_number },
          details.mobileNumber,
        );
        if (recognition === 'refuse') throw new ExistsWithOtherDetailsError();
        if (recognition === 'join') sql.insertMembership.run(institutionId, existing.id);
        return { created: false, user: toStoredUser(existing, sqliteCodec) };
      }),

    updateUser: (institutionId, userId, details) =>
      inTransaction((): StoredUser | null => {
        let updated: UserColumns | undefined;
        try {
          updated = get<UserColumns>(
            sql.updateUser,
            ...userColumnValues(details, sqliteCodec),
            userId,
            institutionId,
          );
        } catch (error) {
          if ((error as { errcode?: number }).errcode !== uniqueViolation) throw error;
          // Which of the two unique values is taken: ask, rather than parse the message.
          const email = get<{ taken: number }>(sql.emailTakenByAnother, details.email, userId);
          throw new ConflictError(email?.taken === 1 ? 'email' : 'ghanaCardNumber');
        }
        if (!updated) return null;
        let account: AccountColumns | undefined;
        if (details.account) {
          account = get<AccountColumns>(
            sql.upsertAccount,
            newId(),
            userId,
            ...accountValues(details.account),
          );
        } else {
          sql.deleteAccount.run(userId);
        }
        return toStoredUser({ ...updated, ...account }, sqliteCodec);
      }),

    async findCredential(publicKey) {
      const row = get<CredentialRow>(sql.findCredential, publicKey);
      return row ? toFoundCredential(row, keyring) : null;
    },

    upsertCredentials: (list, actor = 'start') =>
      inTransaction(() => {
        const institutionIds = new Map<string, string>();
        const stored = new Map<string, CredentialRow>();
        for (const { institution, publicKey } of list) {
          const id = get<{ id: string }>(sql.upsertInstitution, newId(), institution)?.id;
          if (id) institutionIds.set(institution, id);
          const row = get<CredentialRow>(sql.findCredential, publicKey);
          if (row) stored.set(publicKey, row);
        }
        const plan = planProvisioning(list, stored, institutionIds, {
          keyring,
          actor,
          now: new Date(),
        });
        for (const { publicKey, institutionId, sealed, signaturePolicy, isNew } of plan.writes) {
          if (isNew) {
            sql.insertCredential.run(
              publicKey,
              institutionId,
              ...sealedValues(sealed),
              null,
              signaturePolicy,
            );
          } else {
            sql.replaceCredential.run(
              institutionId,
              ...sealedValues(sealed),
              signaturePolicy,
              publicKey,
            );
          }
        }
        return [...plan.writes.map((write) => write.event), ...plan.skipped].map(recordEvent);
      }),

    issueCredential: (credential, options) =>
      inTransaction((): IssuedCredential | null => {
        const { institution, publicKey, secretKey } = credential;
        const institutionId = options.rotation
          ? get<{ id: string }>(sql.findInstitution, institution)?.id
          : get<{ id: string }>(sql.upsertInstitution, newId(), institution)?.id;
        if (!institutionId) return null;
        const expiresAt = options.expiresAt?.toISOString() ?? null;
        const sealed = sealSecret(keyring.current, publicKey, secretKey);
        sql.insertCredential.run(
          publicKey,
          institutionId,
          ...sealedValues(sealed),
          expiresAt,
          credential.signaturePolicy ?? 'any',
        );
        const pending = [issuedEvent(credential, options)];
        const expiring: CredentialRecord[] = [];
        if (options.rotation) {
          const at = options.rotation.othersExpireAt.toISOString();
          const changed = sql.expireOthers.all(at, institutionId, publicKey, at) as {
            public_key: string;
          }[];
          for (const { public_key } of changed) {
            expiring.push(record(public_key));
            pending.push(
              expirySetEvent(
                public_key,
                institution,
                options.rotation.othersExpireAt,
                options.actor,
              ),
            );
          }
        }
        return { issued: record(publicKey), expiring, events: pending.map(recordEvent) };
      }),

    revokeCredential: (publicKey, { actor, reason }) =>
      inTransaction((): RevokedCredential | null => {
        const revoked = sql.revokeCredential.run(reason, publicKey).changes > 0;
        const row = get<CredentialRow>(sql.findCredential, publicKey);
        if (!row) return null;
        const events = revoked
          ? [
              recordEvent({
                publicKey,
                institution: row.institution,
                what: 'revoked',
                reason,
                actor,
              }),
            ]
          : [];
        return { record: toCredentialRecord(row), alreadyRevoked: !revoked, events };
      }),

    async listCredentials(filter = {}) {
      const institution = filter.institution ?? null;
      return (sql.listCredentials.all(institution, institution) as unknown as CredentialRow[]).map(
        toCredentialRecord,
      );
    },

    async listCredentialEvents(filter = {}) {
      const institution = filter.institution ?? null;
      return (sql.listEvents.all(institution, institution) as unknown as EventRow[]).map(toEvent);
    },

    recordCredentialUse: (publicKey) =>
      inTransaction(() => {
        sql.recordCredentialUse.run(publicKey);
      }),

    async sealCredentialSecrets({ actor, reencrypt }) {
      const { events, sealedPlaintext } = await inTransaction(() => {
        const rows = sql.listCredentials.all(null, null) as unknown as CredentialRow[];
        const plan = planSealing(rows, { keyring, actor, reencrypt });
        for (const { publicKey, sealed } of plan.writes) {
          sql.sealSecret.run(...sealedValues(sealed), publicKey);
        }
        return { events: plan.events.map(recordEvent), sealedPlaintext: plan.sealedPlaintext };
      });
      // The secrets in clear were zeroed where they stood (secure_delete), but the log still
      // holds the pages that had them: copy it into the database and empty the file.
      // (A no-op in memory, which has no log.)
      if (sealedPlaintext) db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
      return events;
    },

    async countInstitutions() {
      return get<{ count: number }>(sql.countInstitutions)?.count ?? 0;
    },

    claimNonce: async ({ publicKey, nonce, expiresAt, now }) => {
      const key = `${publicKey}\n${nonce}`;
      const at = now.getTime();
      if ((pendingNonces.get(key) ?? 0) > at) return false;
      if (get(sql.liveNonce, publicKey, nonce, now.toISOString())) return false;
      pendingNonces.set(key, expiresAt.getTime());
      const forget = () => {
        if (pendingNonces.get(key) === expiresAt.getTime()) pendingNonces.delete(key);
      };
      // Recorded in the next group, which is the request's own write whenever it makes one (it
      // is queued in this same turn of the event loop), without waiting for it.
      inTransaction(
        () => {
          const iso = now.toISOString();
          sql.claimNonce.run(publicKey, nonce, expiresAt.toISOString(), iso);
          if (purge.due()) sql.purgeNonces.run(iso, purge.batch);
        },
        { committedIsEnough: true },
      ).then(forget, forget);
      return true;
    },

    rateLimiter: memoryRateLimiter,

    async ping() {
      sql.ping.get();
    },

    async close() {
      // Writes still queued for the next group commit are committed first.
      await inTransaction(() => undefined);
      await offloaded?.close();
      db.close();
    },
  };
  return guardStorage(storage, sqliteFault, health);
}

function accountValues(account: AccountDetails): (string | null)[] {
  return [account.type, account.number, account.network, account.bankName, account.name];
}

/**
 * Opens the embedded database in `file` (or ':memory:'), brings its schema up to date with
 * migrations/sqlite/, and returns the storage on it.
 */
export async function openSqliteStorage(
  file: string,
  keyring: CredentialKeyring,
  options: SqliteOptions = {},
  health?: StorageHealthObserver,
): Promise<Storage> {
  const migrations = await loadMigrations(migrationsDir('sqlite'));
  const db = openSqliteDatabase(file, options);
  try {
    migrateSqlite(db, migrations);
  } catch (error) {
    db.close();
    throw error;
  }
  return createSqliteStorage(
    db,
    keyring,
    file === ':memory:' || options.synchronous === 'normal' ? undefined : { file },
    health,
  );
}
