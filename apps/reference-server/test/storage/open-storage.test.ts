import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { lockFileName } from '../../src/storage/data-dir-lock.js';
import { defaultDataDir, openStorage, parseDatabaseUrl } from '../../src/storage/open-storage.js';
import { institution } from './fixtures.js';

describe('parseDatabaseUrl', () => {
  test('unset or blank: PGlite in the default directory', () => {
    for (const value of [undefined, '', '  ']) {
      expect(parseDatabaseUrl(value, 'some/dir')).toEqual({
        kind: 'pglite',
        dataDir: resolve('some/dir'),
      });
    }
  });

  test('memory://, postgres:// and postgresql://', () => {
    expect(parseDatabaseUrl('memory://', 'd')).toEqual({ kind: 'pglite', dataDir: 'memory://' });
    for (const url of ['postgres://u:p@db:5432/app', 'postgresql://db/app?sslmode=require']) {
      expect(parseDatabaseUrl(url, 'd')).toEqual({ kind: 'postgres', connectionString: url });
    }
  });

  test('anything else without a scheme is a directory, relative to the working directory', () => {
    expect(parseDatabaseUrl('./var/db', 'd')).toEqual({
      kind: 'pglite',
      dataDir: resolve('var/db'),
    });
    expect(parseDatabaseUrl('/srv/db', 'd')).toEqual({ kind: 'pglite', dataDir: '/srv/db' });
  });

  test('another scheme is refused by name, without repeating the URL and its password', () => {
    expect(() => parseDatabaseUrl('mysql://admin:hunter2@db/app', 'd')).toThrow(/"mysql:\/\/"/);
    expect(() => parseDatabaseUrl('mysql://admin:hunter2@db/app', 'd')).not.toThrow(/hunter2/);
    expect(() => parseDatabaseUrl('file:///srv/db', 'd')).toThrow(/unsupported scheme "file:\/\/"/);
  });

  test("the default directory is the package's data/ folder", () => {
    expect(defaultDataDir).toBe(resolve(import.meta.dirname, '../../data'));
  });
});

// One directory for the file: creating a PGlite directory (initdb) takes seconds, reopening less.
describe('openStorage on a directory', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'reference-server-open-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('keeps data across opens, migrating only the first time', async () => {
    const first = await openStorage(dir, { defaultDataDir: '/nonexistent' });
    await institution(first, 'Bank A');
    await first.close();
    const second = await openStorage(undefined, { defaultDataDir: dir });
    expect(await second.countInstitutions()).toBe(1);
    await second.close();
  }, 60_000);

  test('locks the directory while open: a second open is refused, and allowed after close', async () => {
    const first = await openStorage(dir, { defaultDataDir: '/nonexistent' });
    expect(await readFile(join(dir, lockFileName), 'utf8')).toBe(String(process.pid));
    await expect(openStorage(dir, { defaultDataDir: '/nonexistent' })).rejects.toThrow(
      /in use by process \d+: PGlite allows one process at a time/,
    );
    await first.close();
    expect(existsSync(join(dir, lockFileName))).toBe(false);
    const again = await openStorage(dir, { defaultDataDir: '/nonexistent' });
    await again.close();
  }, 60_000);

  test('takes over a lock whose process is gone, refuses one whose process runs', async () => {
    await writeFile(join(dir, lockFileName), '999999999');
    const storage = await openStorage(dir, { defaultDataDir: '/nonexistent' });
    await storage.close();
    // Process 1 always runs (init): the directory stays untouched.
    await writeFile(join(dir, lockFileName), '1');
    await expect(openStorage(dir, { defaultDataDir: '/nonexistent' })).rejects.toThrow(
      /in use by process 1/,
    );
  }, 60_000);

  test('creates a directory that does not exist yet, parents included', async () => {
    const nested = join(dir, 'nested', 'db');
    const storage = await openStorage(nested, { defaultDataDir: '/nonexistent' });
    await storage.close();
    expect(existsSync(join(nested, 'PG_VERSION'))).toBe(true);
  }, 60_000);
});

test('openStorage refuses an unsupported scheme before touching anything', async () => {
  await expect(openStorage('mysql://db/app', { defaultDataDir: '/nonexistent' })).rejects.toThrow(
    /unsupported scheme "mysql:\/\/"/,
  );
});
