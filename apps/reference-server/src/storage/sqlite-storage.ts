import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import { loadMigrations, migrationsDir } from './migrations.js';
import { newId } from './new-id.js';
import { memoryRateLimiter } from './rate-limiters.js';
import { recognize } from './recognition.js';
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
import { sqliteFault } from './sqlite-faults.js';
import {
  type AccountDetails,
  ConflictError,
  ExistsWithOtherDetailsError,
  type Storage,
  type StoredUser,
} from './types.js';
import { guardStorage, type StorageHealthObserver } from './unavailable.js';
import {
  type AccountColumns,
  type ColumnCodec,
  prefixedAccountColumns,
  toStoredUser,
  type UserColumns,
  type UserRow,
  userColumnValues,
  userWritableColumns,
} from './user-rows.js';

/** SQLite's side of the column types (see migrations/sqlite/0001_initial.sql). */
const sqliteCodec: ColumnCodec<number> = {
  toBoolean: (value) => (value ? 1 : 0),
  fromBoolean: (value) => value === 1,
  fromTimestamp: (value) => new Date(value as string),
  fromTextArray: (value) => JSON.parse(value as string) as string[],
};

/** SQLite's constraint error for a UNIQUE index (SQLITE_CONSTRAINT_UNIQUE). */
const uniqueViolation = 2067;

const now = `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`;
const userColumnNames = ['id', ...userWritableColumns, 'documents', 'created_at'];
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
      SELECT c.institution_id, i.name, c.secret_key
      FROM credentials c JOIN institutions i ON i.id = c.institution_id
      WHERE c.public_key = ?`),
    // DO UPDATE rather than DO NOTHING, so that RETURNING gives the existing row's id too.
    upsertInstitution: db.prepare(`
      INSERT INTO institutions (id, name) VALUES (?, ?)
      ON CONFLICT (name) DO UPDATE SET name = excluded.name
      RETURNING id`),
    upsertCredential: db.prepare(`
      INSERT INTO credentials (public_key, institution_id, secret_key) VALUES (?, ?, ?)
      ON CONFLICT (public_key) DO UPDATE
        SET institution_id = excluded.institution_id, secret_key = excluded.secret_key`),
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
 * as the load generator saw it, for 7% more CPU per request (issue #9; README "Storage").
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
    afterCommit(acknowledge) {
      syncWal(acknowledge);
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
 * `health`.
 */
export function createSqliteStorage(
  db: DatabaseSync,
  file?: SqliteFileOptions,
  health?: StorageHealthObserver,
): Storage {
  const sql = prepareStatements(db);
  const offloaded = file && offloadDiskWork(db, file);
  const inTransaction = groupCommitter(db, offloaded?.hooks);

  const insertAccount = (userId: string, account: AccountDetails) =>
    get<AccountColumns>(sql.insertAccount, newId(), userId, ...accountValues(account));

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
      const row = get<{ institution_id: string; name: string; secret_key: string }>(
        sql.findCredential,
        publicKey,
      );
      return row
        ? { institutionId: row.institution_id, institution: row.name, secretKey: row.secret_key }
        : null;
    },

    upsertCredentials: (list) =>
      inTransaction(() => {
        for (const credential of list) {
          const institution = get<{ id: string }>(
            sql.upsertInstitution,
            newId(),
            credential.institution,
          );
          sql.upsertCredential.run(
            credential.publicKey,
            institution?.id ?? null,
            credential.secretKey,
          );
        }
      }),

    async countInstitutions() {
      return get<{ count: number }>(sql.countInstitutions)?.count ?? 0;
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
    file === ':memory:' || options.synchronous === 'normal' ? undefined : { file },
    health,
  );
}
