import type { DatabaseSync } from 'node:sqlite';
import type { CredentialKeyring } from '../credentials/encryption-key.js';
import { credentialStorage } from './credentials/credential-flows.js';
import { sqliteCredentials } from './credentials/sqlite-credentials.js';
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
  getRow,
  groupCommitter,
  migrateSqlite,
  openSqliteDatabase,
  type SqliteOptions,
  sqliteNow,
  walSyncer,
} from './sqlite-database.js';
import {
  type AccountDetails,
  ConflictError,
  ExistsWithOtherDetailsError,
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

/** The columns of {@link UserColumns}, of table `alias`. */
const userColumns = (alias: string) => userColumnNames.map((c) => `${alias}.${c}`).join(', ');
const accountReturning = prefixedAccountColumns('accounts');

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
        updated_at = ${sqliteNow}
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
    getRow<AccountColumns>(sql.insertAccount, newId(), userId, ...accountValues(account));
  const credentials = sqliteCredentials(db, inTransaction);

  const storage: Storage = {
    createOrAddUser: (institutionId, details) =>
      inTransaction(() => {
        const values = userColumnValues(details, sqliteCodec);
        const inserted = getRow<UserColumns>(sql.insertUser, newId(), ...values);
        if (inserted) {
          const account = details.account && insertAccount(inserted.id, details.account);
          sql.insertMembership.run(institutionId, inserted.id);
          return { created: true, user: toStoredUser({ ...inserted, ...account }, sqliteCodec) };
        }
        const existing = getRow<UserRow & { is_member: number }>(
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
          updated = getRow<UserColumns>(
            sql.updateUser,
            ...userColumnValues(details, sqliteCodec),
            userId,
            institutionId,
          );
        } catch (error) {
          if ((error as { errcode?: number }).errcode !== uniqueViolation) throw error;
          // Which of the two unique values is taken: ask, rather than parse the message.
          const email = getRow<{ taken: number }>(sql.emailTakenByAnother, details.email, userId);
          throw new ConflictError(email?.taken === 1 ? 'email' : 'ghanaCardNumber');
        }
        if (!updated) return null;
        let account: AccountColumns | undefined;
        if (details.account) {
          account = getRow<AccountColumns>(
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

    ...credentialStorage(credentials, keyring),

    claimNonce: async ({ publicKey, nonce, expiresAt, now }) => {
      const key = `${publicKey}\n${nonce}`;
      const at = now.getTime();
      if ((pendingNonces.get(key) ?? 0) > at) return false;
      if (getRow(sql.liveNonce, publicKey, nonce, now.toISOString())) return false;
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
