import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync } from 'node:sqlite';

/**
 * A second server process was started on an embedded database that a server already serves
 * (spec Assumptions, "Several processes": the embedded SQLite serves one process). Its message is the
 * one line the operator reads; `main.ts` prints it without a stack.
 */
export class DatabaseInUseError extends Error {
  constructor(readonly databaseFile: string) {
    super(
      `Another reference server is already running on ${databaseFile}: the embedded SQLite database serves one server process. To run several processes as one service, give them all one PostgreSQL (DATABASE_URL=postgres://…).`,
    );
    this.name = 'DatabaseInUseError';
  }
}

/** The lock file beside an embedded database file. */
export function serverLockFile(databaseFile: string): string {
  return `${databaseFile}.server-lock`;
}

/** The lock held by a server process on its embedded database; released by {@link release}. */
export interface SqliteServerLock {
  release(): void;
}

/**
 * Makes this process the one server of the embedded database `databaseFile`, for as long as it
 * lives: throws {@link DatabaseInUseError} when another process is.
 *
 * The lock is SQLite's own, on a small database of its own beside the main file
 * (`<file>.server-lock`): a connection in `locking_mode = EXCLUSIVE` that writes once keeps the
 * file's exclusive lock (a POSIX advisory lock) until it closes, and the kernel drops such locks
 * when the process ends, however it ends (a SIGKILL, a crash, a power loss), so no stale lock is
 * ever left to clean up, unlike a PID file. The main database is not locked by it: the commands
 * (`credentials …`) still open it while the server runs, each write taking its turn.
 */
export function holdSqliteServerLock(databaseFile: string): SqliteServerLock {
  const file = serverLockFile(databaseFile);
  mkdirSync(dirname(file), { recursive: true });
  // timeout 0: another server's lock is refused at once, not waited for.
  const db = new DatabaseSync(file, { timeout: 0 });
  try {
    // journal_mode MEMORY: no journal file beside it; the write is to take the exclusive lock.
    db.exec(
      'PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = MEMORY; PRAGMA user_version = 1',
    );
  } catch (error) {
    db.close();
    // SQLITE_BUSY: the lock is another process's.
    if ((error as { errcode?: unknown }).errcode === 5) throw new DatabaseInUseError(databaseFile);
    throw error;
  }
  return { release: () => db.close() };
}
