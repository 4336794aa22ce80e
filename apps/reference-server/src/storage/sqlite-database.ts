/// <reference lib="es2024.promise" />
// For Promise.withResolvers (ES2024, Node 22+): the base tsconfig's lib stops at ES2023.
import { closeSync, fsync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import { type Migration, wasApplied } from './migrations.js';

/** Options of {@link openSqliteDatabase}. */
export interface SqliteOptions {
  /**
   * `full` (the default): a commit returns only once the write-ahead log is on stable storage, so
   * an acknowledged write survives a power loss of the machine, not only a crash of the process.
   * `normal`: it survives a crash of the process but the last commits may be lost with the power
   * (for benchmarks that want the difference).
   */
  synchronous?: 'full' | 'normal';
}

/**
 * How long a statement waits for another process's write lock (the `credentials` command
 * writing while the server runs) before it fails with SQLITE_BUSY.
 */
export const busyTimeoutMs = 5000;

/**
 * Opens the embedded database in `file` (created with its directory when missing), or an
 * in-memory one for ':memory:'.
 *
 * Durability: WAL journal with synchronous=FULL by default, so a commit is on disk, fsync'ed,
 * when COMMIT returns (the server's storage switches its connection to NORMAL and does that fsync
 * itself, off the event loop: see walSyncer), before the write is acknowledged: it survives a
 * SIGKILL of the process (test/storage/durability.system.test.ts, test/crash/) and a power loss. An
 * interrupted write, or an interrupted first start, is rolled back from the journal at the next
 * open. SQLite locks the file itself, so several processes may open it at once: writes take turns
 * (busy timeout 5 s).
 *
 * secure_delete: what a write deletes or overwrites is zeroed in the page, and pages are zeroed as
 * they are freed, so that the file keeps no copy of a secret stored in clear before migration 0002
 * (nor of personal data a user's update replaced). It costs a memset per deleted cell; creates
 * delete nothing.
 *
 * Memory: the page cache is bounded at 2 MiB per connection (cache_size; the operating system
 * caches the file too); no memory mapping, so what a process holds does not grow with the file
 * (`npm run measure:memory`).
 */
export function openSqliteDatabase(file: string, options: SqliteOptions = {}): DatabaseSync {
  const synchronous = options.synchronous === 'normal' ? 'NORMAL' : 'FULL';
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new DatabaseSync(file);
  try {
    // busy_timeout first: switching a new file to WAL takes the write lock.
    db.exec(`
      PRAGMA busy_timeout = ${busyTimeoutMs};
      PRAGMA journal_mode = WAL;
      PRAGMA synchronous = ${synchronous};
      PRAGMA foreign_keys = ON;
      PRAGMA cache_size = -2048;
      PRAGMA secure_delete = ON;
    `);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/** SQLite's clock in SQL, as its timestamps are stored: ISO 8601 text in UTC, to the millisecond. */
export const sqliteNow = `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`;

/** The first row `statement` gives, typed as the caller knows its columns to be. */
export function getRow<Row>(statement: StatementSync, ...params: SQLInputValue[]): Row | undefined {
  return statement.get(...params) as Row | undefined;
}

/** Runs a synchronous function in one transaction; see {@link transactionRunner}. */
export type RunInTransaction = <T>(work: () => T) => T;

/**
 * A function that runs `work` in one write transaction: COMMIT when it returns, ROLLBACK when it
 * throws (the error is rethrown). BEGIN IMMEDIATE takes the write lock at once, so two processes
 * cannot both read and then both write; within the process, `work` is synchronous, so nothing
 * else runs on the connection until it ends.
 */
export function transactionRunner(db: DatabaseSync): RunInTransaction {
  const begin = db.prepare('BEGIN IMMEDIATE');
  const commit = db.prepare('COMMIT');
  const rollback = db.prepare('ROLLBACK');
  return (work) => {
    begin.run();
    try {
      const result = work();
      commit.run();
      return result;
    } catch (error) {
      try {
        rollback.run();
      } catch {
        // SQLite has already rolled back (it does after some errors, e.g. SQLITE_FULL).
      }
      throw error;
    }
  };
}

/** Runs a synchronous function as part of the next group commit; see {@link groupCommitter}. */
export type RunInGroupCommit = <T>(work: () => T, options?: GroupWorkOptions) => Promise<T>;

/** Options of one work of a {@link groupCommitter}. */
export interface GroupWorkOptions {
  /**
   * Settle once COMMIT returned, without waiting for the group to reach stable storage
   * (`hooks.afterCommit`). Only for a write whose loss in a crash does no harm unless a later
   * write is lost with it: the log is one sequence, so the flush that makes any later commit
   * durable makes this one durable too. A group of such works alone asks for no flush.
   */
  committedIsEnough?: boolean;
}

/** What a {@link groupCommitter} lets the rest of the storage do around each group. */
export interface GroupCommitHooks {
  /** Before a group's BEGIN: a promise returned holds the group (and those after it) until then. */
  beforeGroup?: () => Promise<void> | undefined;
  /**
   * After a successful COMMIT: calls `acknowledge` once the group may be acknowledged (with an
   * error if it may not). Without it, a group is acknowledged when COMMIT returns.
   */
  afterCommit?: (acknowledge: (error: Error | null) => void, flush: boolean) => void;
}

/** Calls `done` once everything committed so far is on stable storage; see {@link walSyncer}. */
export interface SyncWal {
  (done: (error: Error | null) => void): void;
  /** Waits for a running sync, then closes the log's file descriptor. */
  close(): Promise<void>;
}

/**
 * The fsync that synchronous=FULL does inside COMMIT, done instead on libuv's thread pool, so the
 * event loop serves other requests while the disk flushes (one to four milliseconds on a virtual
 * disk). The connection runs with synchronous=NORMAL, under which COMMIT writes the write-ahead log
 * without syncing it; a group is acknowledged only after an fsync of the log that started after
 * its COMMIT returned, which is what FULL guarantees: an acknowledged write survives a power loss.
 * fsync flushes the file whichever descriptor asks; the server's connection keeps the log open, so
 * SQLite does not delete it meanwhile, and checkpoints sync what they copy themselves.
 *
 * Syncs are coalesced: while one runs, the groups committed meanwhile wait for the next one. A
 * group may read rows of the group before it whose sync is still running, but it is itself
 * answered only after its own sync, which starts after that one ended: no answer about users
 * depends on a write that is not yet on disk. `syncFile` is injectable for tests.
 */
export function walSyncer(databaseFile: string, syncFile: typeof fsync = fsync): SyncWal {
  let fd: number | undefined;
  let running: Promise<void> | undefined;
  let waiting: ((error: Error | null) => void)[] = [];

  const start = () => {
    const batch = waiting;
    waiting = [];
    const { promise, resolve } = Promise.withResolvers<void>();
    running = promise;
    const finish = (error: Error | null) => {
      running = undefined;
      resolve();
      for (const done of batch) done(error);
      if (waiting.length > 0) start();
    };
    try {
      fd ??= openSync(`${databaseFile}-wal`, 'r');
    } catch (error) {
      return finish(error as Error);
    }
    syncFile(fd, finish);
  };

  return Object.assign(
    (done: (error: Error | null) => void) => {
      waiting.push(done);
      if (running === undefined) start();
    },
    {
      async close() {
        while (running !== undefined) await running;
        if (fd !== undefined) closeSync(fd);
        fd = undefined;
      },
    },
  );
}

/**
 * Write transactions with group commit. Each `work` runs synchronously in its own savepoint, so it
 * succeeds or leaves nothing behind on its own; the works queued during one turn of the event loop
 * (the requests that arrived together) share ONE transaction and so one COMMIT, and one fsync. A
 * work's promise settles only once the group is durable: after COMMIT returned under
 * synchronous=FULL, or after `hooks.afterCommit` acknowledged it (see {@link walSyncer}). If the
 * COMMIT or that acknowledgement fails, every work of the group fails with it.
 */
export function groupCommitter(db: DatabaseSync, hooks: GroupCommitHooks = {}): RunInGroupCommit {
  const inTransaction = transactionRunner(db);
  const savepoint = db.prepare('SAVEPOINT work');
  const release = db.prepare('RELEASE work');
  const undo = db.prepare('ROLLBACK TO work');
  interface Queued {
    work: () => unknown;
    committedIsEnough: boolean;
    resolve: (value: unknown) => void;
    reject: (error: unknown) => void;
    result?: { value: unknown } | { error: unknown };
  }
  let queue: Queued[] = [];

  const flush = () => {
    const held = hooks.beforeGroup?.();
    if (held) {
      void held.then(flush);
      return;
    }
    const group = queue;
    queue = [];
    try {
      inTransaction(() => {
        for (const item of group) {
          savepoint.run();
          try {
            item.result = { value: item.work() };
          } catch (error) {
            try {
              undo.run();
            } catch {
              // SQLite has rolled back the whole transaction (after SQLITE_FULL, say) and the
              // savepoint with it: the group fails with the work's own error, which says why.
              throw error;
            }
            item.result = { error };
          }
          release.run();
        }
      });
    } catch (error) {
      for (const item of group) item.reject(error);
      return;
    }
    const settle = (item: Queued, error: Error | null) => {
      const { result, resolve, reject } = item;
      if (error) reject(error);
      else if (result && 'value' in result) resolve(result.value);
      else reject(result?.error);
    };
    // Works that need no flush settle now; the others once the group may be acknowledged.
    const waiting = group.filter((item) => {
      if (item.committedIsEnough) settle(item, null);
      return !item.committedIsEnough;
    });
    const acknowledge = (error: Error | null) => {
      for (const item of waiting) settle(item, error);
    };
    if (hooks.afterCommit) hooks.afterCommit(acknowledge, waiting.length > 0);
    else acknowledge(null);
  };

  return <T>(work: () => T, options: GroupWorkOptions = {}) =>
    new Promise<T>((resolve, reject) => {
      if (queue.length === 0) setImmediate(flush);
      queue.push({
        work,
        committedIsEnough: options.committedIsEnough === true,
        resolve: resolve as (value: unknown) => void,
        reject,
      });
    });
}

/**
 * Applies the migrations not yet recorded in `schema_migrations` (see wasApplied), each in its
 * own write transaction, which also makes processes opening the file together take turns.
 * Returns the versions it applied.
 */
export function migrateSqlite(db: DatabaseSync, migrations: readonly Migration[]): number[] {
  const inTransaction = transactionRunner(db);
  const applied: number[] = [];
  for (const migration of migrations) {
    const didApply = inTransaction(() => {
      db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version integer PRIMARY KEY,
        name text NOT NULL,
        checksum text NOT NULL,
        applied_at text NOT NULL DEFAULT (${sqliteNow})
      ) STRICT`);
      const recorded = db
        .prepare('SELECT checksum FROM schema_migrations WHERE version = ?')
        .get(migration.version) as { checksum: string } | undefined;
      if (wasApplied(migration, recorded?.checksum)) return false;
      db.exec(migration.sql);
      db.prepare('INSERT INTO schema_migrations (version, name, checksum) VALUES (?, ?, ?)').run(
        migration.version,
        migration.name,
        migration.checksum,
      );
      return true;
    });
    if (didApply) applied.push(migration.version);
  }
  return applied;
}
