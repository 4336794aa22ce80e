import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseSync, SQLInputValue } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadMigrations, migrationsDir } from '../../src/storage/migrations.js';
import { migrateSqlite, openSqliteDatabase } from '../../src/storage/sqlite-database.js';
import { createSqliteStorage } from '../../src/storage/sqlite-storage.js';
import { detailsMigrationContract } from './details-migration-contract.js';
import { testKeyring } from './fixtures.js';
import { migrationContract } from './migration-contract.js';
import { type RawSecretRow, type StorageUnderTest, storageContract } from './storage-contract.js';

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'reference-server-sqlite-'));
});
afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

async function sqliteUnderTest(file: () => string, offload = false): Promise<StorageUnderTest> {
  const path = file();
  const db = openSqliteDatabase(path);
  const migrate = async () => migrateSqlite(db, await loadMigrations(migrationsDir('sqlite')));
  await migrate();
  const keyring = testKeyring();
  return {
    storage: createSqliteStorage(db, keyring, offload ? { file: path } : undefined),
    keyring,
    // On the same connection, used one at a time; closed with the database by `storage`.
    withKeys: async (other) => createSqliteStorage(db, other),
    credentialRows: async () =>
      db
        .prepare('SELECT * FROM credentials ORDER BY public_key')
        .all() as unknown as RawSecretRow[],
    storeInClear: async (publicKey, institutionId, secret) => {
      db.prepare(
        'INSERT INTO credentials (public_key, institution_id, plaintext_secret) VALUES (?, ?, ?)',
      ).run(publicKey, institutionId, secret);
    },
    copySealedSecret: async (from, to) => {
      db.prepare(`
        UPDATE credentials SET (secret_key_id, secret_nonce, secret_ciphertext, secret_tag) =
          (SELECT secret_key_id, secret_nonce, secret_ciphertext, secret_tag
           FROM credentials WHERE public_key = ?)
        WHERE public_key = ?`).run(from, to);
    },
    count: async (table) =>
      (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n,
    reset: async () =>
      db.exec('DELETE FROM institutions; DELETE FROM users; DELETE FROM credential_events;'),
    migrateAgain: migrate,
    versions: async () => ({
      recorded: db
        .prepare('SELECT version FROM schema_migrations ORDER BY version')
        .all()
        .map((row) => (row as { version: number }).version),
      files: (await loadMigrations(migrationsDir('sqlite'))).map((m) => m.version),
    }),
  };
}

describe('storage on in-memory SQLite', () => {
  storageContract(() => sqliteUnderTest(() => ':memory:'));
});

describe('storage on an SQLite file (WAL, synchronous=FULL)', () => {
  storageContract(() => sqliteUnderTest(() => join(scratch, 'contract.sqlite')));
});

describe('storage on an SQLite file as the server opens it (fsync and checkpoints off the event loop)', () => {
  storageContract(() => sqliteUnderTest(() => join(scratch, 'offloaded.sqlite'), true));
});

describe('migrations on SQLite', () => {
  let db: DatabaseSync | undefined;
  afterAll(() => db?.close());
  migrationContract('sqlite', async () => {
    db?.close();
    const fresh = openSqliteDatabase(':memory:');
    db = fresh;
    return {
      migrate: async (dir) => migrateSqlite(fresh, await loadMigrations(dir)),
      tables: async () =>
        fresh
          .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
          .all()
          .map((row) => (row as { name: string }).name),
      recorded: async () =>
        fresh
          .prepare('SELECT version, name FROM schema_migrations ORDER BY version')
          .all()
          .map((row) => ({ ...(row as { version: number; name: string }) })),
    };
  });

  detailsMigrationContract('sqlite', async () => {
    db?.close();
    const fresh = openSqliteDatabase(':memory:');
    db = fresh;
    return {
      migrate: async (migrations) => void migrateSqlite(fresh, migrations),
      run: async (sql, params) => {
        fresh.prepare(sql.replaceAll(/\$(\d+)/g, '?$1')).run(...(params as SQLInputValue[]));
      },
      storage: async () => {
        migrateSqlite(fresh, await loadMigrations(migrationsDir('sqlite')));
        db = undefined; // the storage closes it
        return createSqliteStorage(fresh, testKeyring());
      },
      id: (n) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
      boolean: (value) => (value ? 1 : 0),
    };
  });

  test('refuses misnamed and duplicate migration files', async () => {
    const dir = await mkdtemp(join(scratch, 'names-'));
    const { writeFile } = await import('node:fs/promises');
    await writeFile(join(dir, '1_first.sql'), 'SELECT 1;');
    await expect(loadMigrations(dir)).rejects.toThrow(/1_first.sql is not named NNNN_name.sql/);
    await rm(join(dir, '1_first.sql'));
    await writeFile(join(dir, '0001_a.sql'), 'SELECT 1;');
    await writeFile(join(dir, '0001_b.sql'), 'SELECT 1;');
    await expect(loadMigrations(dir)).rejects.toThrow(/Two migration files .* have version 1/);
  });
});
