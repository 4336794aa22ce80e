import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { keyFileOf } from '../credentials/encryption-key.js';
import { serverLockFile } from './sqlite-server-lock.js';

/**
 * The files of an embedded database: the database, SQLite's journals beside it, the server's lock
 * and the key file of its secrets.
 */
export function databaseFiles(file: string): string[] {
  return [
    file,
    `${file}-wal`,
    `${file}-shm`,
    `${file}-journal`,
    serverLockFile(file),
    keyFileOf(file),
  ];
}

/**
 * Makes the embedded database `file` readable by its owner only, before SQLite opens it: it holds
 * the users' personal data, and the key file beside it opens their institutions' secrets.
 *
 * - Each of its files ({@link databaseFiles}) that exists is set to 0600 (no bit for the group or
 *   others), whatever an earlier version or the umask made it; a database file or lock file not
 *   there yet is created empty with 0600, and SQLite gives its journals the database file's mode.
 * - A directory made for it is 0700. With `ownDirectory` (the directory holds the server's own
 *   file: the default `data/`, or a directory DATABASE_URL names), an existing one is set to 0700
 *   too; the directory of a file DATABASE_URL names is the operator's, and left as it is (it may
 *   be `/tmp`).
 */
export function keepDatabasePrivate(
  file: string,
  { ownDirectory }: { ownDirectory: boolean },
): void {
  const directory = dirname(file);
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  if (ownDirectory) ownerOnly(directory);
  for (const path of databaseFiles(file)) ownerOnly(path);
  for (const path of [file, serverLockFile(file)]) createOwnerOnly(path);
}

/**
 * Creates `path` empty with 0600 when it is not there. One that is there is never opened here:
 * closing a descriptor of a file drops every POSIX lock this process holds on it, SQLite's too.
 */
function createOwnerOnly(path: string): void {
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/**
 * Clears the group's and others' bits of `path`'s mode, when it exists and has any. A file this
 * process may not change (another user's, a read-only file system) is left as it is: the server
 * still starts, as before.
 */
function ownerOnly(path: string): void {
  const stats = statSync(path, { throwIfNoEntry: false });
  if (!stats || (stats.mode & 0o077) === 0) return;
  try {
    chmodSync(path, stats.mode & 0o700);
  } catch (error) {
    if (!['EPERM', 'EROFS'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
  }
}
