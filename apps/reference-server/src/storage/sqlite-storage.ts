import type { DatabaseSync } from 'node:sqlite';
import type { CredentialKeyring } from '../credentials/encryption-key.js';
import { credentialStorage } from './credentials/credential-flows.js';
import { sqliteCredentials } from './credentials/sqlite-credentials.js';
import { sqliteFault } from './health/sqlite-faults.js';
import { guardStorage, type StorageHealthObserver } from './health/unavailable.js';
import { loadMigrations, migrationsDir } from './migrations.js';
import { sqliteNonceClaimer, sqliteNonces } from './nonces/sqlite-nonces.js';
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
import type { Storage } from './types.js';
import { sqliteUsers } from './users/sqlite-users.js';

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
 * the durability of FULL), and checkpoints on a thread of their own (startCheckpointer): more
 * creates per second and shorter slow answers under load, for a little more CPU per request
 * (ARCHITECTURE.md, "The hot path").
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
 * The {@link Storage} on the embedded SQLite database (node:sqlite), put together from its
 * concerns: users/sqlite-users.ts, credentials/ (secret keys sealed with `keyring` before they are
 * written), nonces/, rate-limits/. Every write is synchronous statements in its own savepoint of a
 * group-committed write transaction (see groupCommitter): nothing else runs on the connection
 * meanwhile, and BEGIN IMMEDIATE makes other processes on the same file wait, so a check followed
 * by a write sees no other write in between. Uniqueness is still the schema's (constraints, ON
 * CONFLICT). With `file`, the disk work runs off the event loop (see offloadDiskWork); without,
 * commits are synchronous=FULL as the database was opened. Faults of the disk and of the locks
 * become StorageUnavailableError (health/sqlite-faults.ts), told to `health`.
 */
export function createSqliteStorage(
  db: DatabaseSync,
  keyring: CredentialKeyring,
  file?: SqliteFileOptions,
  health?: StorageHealthObserver,
): Storage {
  const offloaded = file && offloadDiskWork(db, file);
  const inTransaction = groupCommitter(db, offloaded?.hooks);
  const ping = db.prepare('SELECT 1');
  const claimNonce = sqliteNonceClaimer(db);
  const storage: Storage = {
    ...sqliteUsers(db, inTransaction, claimNonce),
    ...credentialStorage(sqliteCredentials(db, inTransaction), keyring),
    ...sqliteNonces(claimNonce, inTransaction),
    rateLimiter: memoryRateLimiter,
    async ping() {
      ping.get();
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
