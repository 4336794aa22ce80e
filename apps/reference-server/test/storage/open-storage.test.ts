import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  EncryptionKeyError,
  keyFileOf,
  parseEncryptionKey,
  randomEncryptionKey,
} from '../../src/credentials/encryption-key.js';
import {
  defaultDataDir,
  openStorage,
  parseDatabaseUrl,
  sqliteFileName,
} from '../../src/storage/open-storage.js';
import type { Storage } from '../../src/storage/types.js';
import { institution, person } from './fixtures.js';

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'reference-server-open-'));
});
afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('parseDatabaseUrl', () => {
  test('unset or blank: SQLite in the default directory', () => {
    for (const value of [undefined, '', '  ']) {
      expect(parseDatabaseUrl(value, 'some/dir')).toEqual({
        kind: 'sqlite',
        file: resolve('some/dir', sqliteFileName),
      });
    }
  });

  test('memory://, postgres:// and postgresql://', () => {
    expect(parseDatabaseUrl('memory://', 'd')).toEqual({ kind: 'sqlite', file: ':memory:' });
    for (const url of ['postgres://u:p@db:5432/app', 'postgresql://db/app?sslmode=require']) {
      expect(parseDatabaseUrl(url, 'd')).toEqual({ kind: 'postgres', connectionString: url });
    }
  });

  test('a path is a directory holding the database, unless it is (or will be) a file', async () => {
    expect(parseDatabaseUrl('./var/db', 'd')).toEqual({
      kind: 'sqlite',
      file: resolve('var/db', sqliteFileName),
    });
    for (const file of ['/srv/app.sqlite', '/srv/app.sqlite3', '/srv/app.db', '/srv/APP.DB']) {
      expect(parseDatabaseUrl(file, 'd')).toEqual({ kind: 'sqlite', file });
    }
    const existingFile = join(scratch, 'chosen-name');
    await writeFile(existingFile, '');
    expect(parseDatabaseUrl(existingFile, 'd')).toEqual({ kind: 'sqlite', file: existingFile });
    const existingDir = join(scratch, 'looks-like.db');
    await mkdir(existingDir);
    expect(parseDatabaseUrl(existingDir, 'd')).toEqual({
      kind: 'sqlite',
      file: join(existingDir, sqliteFileName),
    });
  });

  test('another scheme is refused by name, without repeating the URL and its password', () => {
    expect(() => parseDatabaseUrl('mysql://admin:hunter2@db/app', 'd')).toThrow(/"mysql:\/\/"/);
    expect(() => parseDatabaseUrl('mysql://admin:hunter2@db/app', 'd')).not.toThrow(/hunter2/);
    expect(() => parseDatabaseUrl('file:///srv/db', 'd')).toThrow(/unsupported scheme "file:\/\/"/);
  });

  test('a PGlite directory of an earlier version is refused in one line saying how to start fresh', async () => {
    const old = join(scratch, 'pglite-data');
    await mkdir(old);
    await writeFile(join(old, 'PG_VERSION'), '17\n');
    for (const [url, fallback] of [
      [old, 'd'],
      [undefined, old],
    ] as const) {
      expect(() => parseDatabaseUrl(url, fallback)).toThrow(
        new RegExp(
          `^${old} holds a PGlite database .* to start fresh, delete it \\(rm -rf '${old}'\\)`,
        ),
      );
      expect(() => parseDatabaseUrl(url, fallback)).not.toThrow(/\n/);
    }
  });

  test("the default directory is the package's data/ folder", () => {
    expect(defaultDataDir).toBe(resolve(import.meta.dirname, '../../data'));
  });
});

describe('openStorage on the embedded database', () => {
  test('keeps data across opens, in the directory or the file named', async () => {
    const dir = join(scratch, 'kept');
    const first = await openStorage(dir, { defaultDataDir: '/nonexistent' });
    await institution(first, 'Bank A');
    await first.close();
    expect(existsSync(join(dir, sqliteFileName))).toBe(true);
    const second = await openStorage(undefined, { defaultDataDir: dir });
    expect(await second.countInstitutions()).toBe(1);
    await second.close();

    const file = join(scratch, 'nested', 'dirs', 'chosen.sqlite');
    const inFile = await openStorage(file, { defaultDataDir: '/nonexistent' });
    await institution(inFile, 'Bank B');
    await inFile.close();
    const again = await openStorage(file, { defaultDataDir: '/nonexistent' });
    expect(await again.countInstitutions()).toBe(1);
    await again.close();
  });

  test('two processes may open one file at once: their writes take turns, none is lost', async () => {
    // Two connections in one process are as separate as two processes to SQLite's file locks.
    const dir = join(scratch, 'shared');
    const [server, command] = await Promise.all([
      openStorage(dir, { defaultDataDir: '/nonexistent' }),
      openStorage(dir, { defaultDataDir: '/nonexistent' }),
    ]);
    try {
      const bank = await institution(server, 'Bank A');
      await command.upsertCredentials([
        { institution: 'Bank B', publicKey: 'pk_b', secretKey: 'secret-b-0123456789' },
      ]);
      expect(await server.findCredential('pk_b')).toMatchObject({ institution: 'Bank B' });
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          (index % 2 ? server : command).createOrAddUser(bank, person()),
        ),
      );
      expect(results.every((result) => result.created)).toBe(true);
      expect(await command.countInstitutions()).toBe(2);
    } finally {
      await Promise.all([server.close(), command.close()]);
    }
  });

  test('memory:// is a database of its own each time', async () => {
    const one = await openStorage('memory://', { defaultDataDir: '/nonexistent' });
    const two = await openStorage('memory://', { defaultDataDir: '/nonexistent' });
    await institution(one, 'Bank A');
    expect(await two.countInstitutions()).toBe(0);
    await Promise.all([one.close(), two.close()]);
  });
});

describe('the key the secrets are encrypted with', () => {
  const secret = 'sk_the_secret_0123456789abcdef';
  const provision = (storage: Storage) =>
    storage.upsertCredentials([{ institution: 'Bank A', publicKey: 'pk_a', secretKey: secret }]);

  test('unset, the embedded database gets a key file beside it at its first start, mode 0600, used from then on', async () => {
    const dir = join(scratch, 'key-file');
    const first = await openStorage(dir, { defaultDataDir: '/nonexistent' });
    await provision(first);
    await first.close();
    const keyFile = keyFileOf(join(dir, sqliteFileName));
    expect(keyFile).toBe(join(dir, 'reference-server.sqlite-credentials.key'));
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(keyFile, 'utf8')).toMatch(/^[A-Za-z0-9+/]{43}=\n$/);
    const second = await openStorage(dir, { defaultDataDir: '/nonexistent' });
    expect((await second.findCredential('pk_a'))?.secretKey).toBe(secret);
    await second.close();
  });

  test('a missing or wrong key file stops the start in one line naming the key ids, and is not replaced', async () => {
    const dir = join(scratch, 'lost-key');
    const first = await openStorage(dir, { defaultDataDir: '/nonexistent' });
    await provision(first);
    await first.close();
    const keyFile = keyFileOf(join(dir, sqliteFileName));
    const sealedWith = parseEncryptionKey('k', readFileSync(keyFile, 'utf8').trim()).id;

    await rm(keyFile);
    const lost = await openStorage(dir, { defaultDataDir: '/nonexistent' }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(lost).toBeInstanceOf(EncryptionKeyError);
    expect((lost as Error).message).toMatch(
      new RegExp(
        `^The stored secret keys are encrypted with key id ${sealedWith}, but the key file .* has key id [0-9a-f]{16}: start with the key they were encrypted with`,
      ),
    );
    expect((lost as Error).message).not.toContain('\n');
    // The key file made for the attempt is gone again: the next start with the right one works.
    expect(existsSync(keyFile)).toBe(false);

    const other = randomEncryptionKey();
    await writeFile(keyFile, `${other.key.toString('base64')}\n`, { mode: 0o600 });
    await expect(openStorage(dir, { defaultDataDir: '/nonexistent' })).rejects.toThrow(
      `encrypted with key id ${sealedWith}, but the key file ${keyFile} has key id ${other.id}`,
    );
    expect(readFileSync(keyFile, 'utf8')).toBe(`${other.key.toString('base64')}\n`);

    await writeFile(keyFile, 'not a key\n');
    await expect(openStorage(dir, { defaultDataDir: '/nonexistent' })).rejects.toThrow(
      `The key file ${keyFile} does not hold a key (base64 of 32 bytes): restore it`,
    );
  });

  test('CREDENTIALS_ENCRYPTION_KEY replaces the key file; a wrong one is refused by its id', async () => {
    const dir = join(scratch, 'env-key');
    const key = randomEncryptionKey();
    const first = await openStorage(dir, {
      defaultDataDir: '/nonexistent',
      encryptionKeys: { current: key },
    });
    await provision(first);
    await first.close();
    expect(existsSync(keyFileOf(join(dir, sqliteFileName)))).toBe(false);
    const wrong = { ...randomEncryptionKey(), source: 'CREDENTIALS_ENCRYPTION_KEY' };
    await expect(
      openStorage(dir, { defaultDataDir: '/nonexistent', encryptionKeys: { current: wrong } }),
    ).rejects.toThrow(
      `encrypted with key id ${key.id}, but CREDENTIALS_ENCRYPTION_KEY has key id ${wrong.id}`,
    );
    // With the old key as the previous one, it opens, and the secrets are found.
    const both = await openStorage(dir, {
      defaultDataDir: '/nonexistent',
      encryptionKeys: { current: wrong, previous: key },
    });
    expect((await both.findCredential('pk_a'))?.secretKey).toBe(secret);
    await both.close();
  });

  test('memory:// keeps its key in memory: no file anywhere', async () => {
    const storage = await openStorage('memory://', { defaultDataDir: join(scratch, 'unused') });
    await provision(storage);
    expect((await storage.findCredential('pk_a'))?.secretKey).toBe(secret);
    await storage.close();
    expect(existsSync(join(scratch, 'unused'))).toBe(false);
  });
});

test('openStorage refuses an unsupported scheme before touching anything', async () => {
  await expect(openStorage('mysql://db/app', { defaultDataDir: '/nonexistent' })).rejects.toThrow(
    /unsupported scheme "mysql:\/\/"/,
  );
});
