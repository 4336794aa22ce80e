/**
 * The embedded database is its owner's alone (src/storage/private-files.ts): its files are 0600
 * and its own directory 0700 when the storage opens it, fresh or left looser by an earlier
 * version; a directory the operator named for a file of their own is left as it is.
 */
import { chmodSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openStorage, sqliteFileName } from '../../src/storage/open-storage.js';
import { databaseFiles } from '../../src/storage/private-files.js';
import { institution } from './fixtures.js';

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'reference-server-private-'));
});
afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** The permission bits of `path`, in octal, or `absent`. */
const modeOf = (path: string) => {
  const stats = statSync(path, { throwIfNoEntry: false });
  return stats ? (stats.mode & 0o777).toString(8) : 'absent';
};

/** Opens the database at `url` as the server does, writes to it, and gives each file's mode. */
async function openAndWrite(url: string, file: string) {
  const storage = await openStorage(url, { defaultDataDir: '/nonexistent', asTheOneServer: true });
  try {
    await institution(storage, `Bank ${Math.random()}`);
    // While it is open: the journals are there.
    return Object.fromEntries(databaseFiles(file).map((path) => [path, modeOf(path)]));
  } finally {
    await storage.close();
  }
}

describe('the files of the embedded database', () => {
  test('a fresh directory: 0700, and every file in it 0600 (database, journals, lock, key file)', async () => {
    const dir = join(scratch, 'fresh', 'data');
    const file = join(dir, sqliteFileName);
    const modes = await openAndWrite(dir, file);
    expect(modeOf(dir)).toBe('700');
    expect(modes).toEqual({
      [file]: '600',
      [`${file}-wal`]: '600',
      [`${file}-shm`]: '600',
      [`${file}-journal`]: 'absent',
      [`${file}.server-lock`]: '600',
      [`${file}-credentials.key`]: '600',
    });
  });

  test('a directory and files an earlier version left readable by all are tightened', async () => {
    const dir = join(scratch, 'earlier');
    const file = join(dir, sqliteFileName);
    await openAndWrite(dir, file);
    chmodSync(dir, 0o755);
    for (const path of databaseFiles(file)) {
      if (modeOf(path) !== 'absent') chmodSync(path, 0o644);
    }
    expect(modeOf(file)).toBe('644');
    const modes = await openAndWrite(dir, file);
    expect(modeOf(dir)).toBe('700');
    for (const [path, mode] of Object.entries(modes)) {
      expect([path, mode]).toEqual([path, path.endsWith('-journal') ? 'absent' : '600']);
    }
  });

  test('a file the operator named: it is 0600, and the directory it is in is left as it is', async () => {
    const shared = join(scratch, 'shared');
    await mkdir(shared, { mode: 0o755 });
    chmodSync(shared, 0o755);
    const file = join(shared, 'institutions.sqlite');
    const modes = await openAndWrite(file, file);
    expect(modeOf(shared)).toBe('755');
    expect(modes[file]).toBe('600');
    expect(modes[`${file}-credentials.key`]).toBe('600');
  });
});
