/**
 * Which errors of the embedded database are faults of the infrastructure (503): SQLite's primary
 * result codes for a full or failing disk, a lock held past the busy timeout, a read-only file,
 * and the file-system errors of the log's fsync (walSyncer). SQLITE_CONSTRAINT, SQLITE_ERROR (a
 * bad statement) and the rest are bugs and stay a 500.
 * @see https://www.sqlite.org/rescode.html
 */

/** Primary result codes (the low byte of node:sqlite's extended `errcode`). */
const unavailableResults = new Map<number, string>([
  [5, 'the database file is locked by another process past the busy timeout'], // SQLITE_BUSY
  [6, 'a database table is locked'], // SQLITE_LOCKED
  [7, 'SQLite is out of memory'], // SQLITE_NOMEM
  [8, 'the database file is read-only'], // SQLITE_READONLY
  [10, 'the disk failed to read or write the database'], // SQLITE_IOERR
  [13, 'the disk is full'], // SQLITE_FULL
  [14, 'the database file cannot be opened'], // SQLITE_CANTOPEN
]);

/** File-system errors of the log's fsync and its descriptor. */
const fileSystemCodes = new Map<string, string>([
  ['ENOSPC', 'the disk is full'],
  ['EDQUOT', 'the disk quota is exhausted'],
  ['EIO', 'the disk failed to read or write the database'],
  ['EROFS', 'the file system is read-only'],
]);

/** The reason `error` is a fault of the embedded database's disk or locks, else undefined. */
export function sqliteFault(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const { errcode, code } = error as { errcode?: unknown; code?: unknown };
  if (typeof errcode === 'number') return unavailableResults.get(errcode & 0xff);
  return typeof code === 'string' ? fileSystemCodes.get(code) : undefined;
}
