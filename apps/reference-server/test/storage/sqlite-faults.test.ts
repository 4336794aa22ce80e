import { describe, expect, it } from 'vitest';
import { sqliteFault } from '../../src/storage/health/sqlite-faults.js';

/** An error as node:sqlite raises it: `errcode` is SQLite's extended result code. */
const sqliteError = (errcode: number) =>
  Object.assign(new Error('from SQLite'), { code: 'ERR_SQLITE_ERROR', errcode });

describe('sqliteFault', () => {
  it.each([
    [13, 'SQLITE_FULL'],
    [5, 'SQLITE_BUSY'],
    [517, 'SQLITE_BUSY_SNAPSHOT'],
    [8, 'SQLITE_READONLY'],
    [10, 'SQLITE_IOERR'],
    [778, 'SQLITE_IOERR_WRITE'],
    [14, 'SQLITE_CANTOPEN'],
  ])('calls result code %i (%s) unavailable', (errcode) => {
    expect(sqliteFault(sqliteError(errcode))).toBeTypeOf('string');
  });

  it.each([
    [2067, 'SQLITE_CONSTRAINT_UNIQUE'],
    [1, 'SQLITE_ERROR (a bad statement)'],
    [19, 'SQLITE_CONSTRAINT'],
    [11, 'SQLITE_CORRUPT'],
  ])('leaves result code %i (%s) a bug: 500', (errcode) => {
    expect(sqliteFault(sqliteError(errcode))).toBeUndefined();
  });

  it('calls the file-system errors of the log fsync unavailable', () => {
    for (const code of ['ENOSPC', 'EIO', 'EROFS', 'EDQUOT']) {
      expect(sqliteFault(Object.assign(new Error(code), { code }))).toBeTypeOf('string');
    }
    expect(sqliteFault(Object.assign(new Error('EBADF'), { code: 'EBADF' }))).toBeUndefined();
  });

  it('reads a real SQLITE_FULL: a database whose page count is capped', async () => {
    const { DatabaseSync } = await import('node:sqlite');
    const db = new DatabaseSync(':memory:');
    db.exec('PRAGMA max_page_count = 2; CREATE TABLE t (b BLOB)');
    let caught: unknown;
    try {
      db.prepare('INSERT INTO t VALUES (randomblob(100000))').run();
    } catch (error) {
      caught = error;
    }
    db.close();
    expect(sqliteFault(caught)).toBe('the disk is full');
  });
});
