import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import type { Database } from '../../src/storage/database.js';
import { loadMigrations, migrate } from '../../src/storage/migrate.js';
import { openPgliteDatabase } from '../../src/storage/pglite-database.js';

let db: Database;
let dir: string;

beforeAll(async () => {
  db = await openPgliteDatabase('memory://');
});
afterAll(async () => {
  await db?.close();
});
beforeEach(async () => {
  await db.exec('DROP SCHEMA public CASCADE; CREATE SCHEMA public');
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = await mkdtemp(join(tmpdir(), 'reference-server-migrations-'));
});

const tables = async () =>
  (
    await db.query<{ name: string }>(
      `SELECT table_name AS name FROM information_schema.tables
       WHERE table_schema = 'public' ORDER BY table_name`,
    )
  ).map((row) => row.name);

describe('the package migrations', () => {
  test('are numbered from 0001 without gaps and create the tables of the issue', async () => {
    const migrations = await loadMigrations();
    expect(migrations.map((m) => m.version)).toEqual(migrations.map((_, index) => index + 1));
    expect(await migrate(db, migrations)).toEqual(migrations.map((m) => m.version));
    expect(await tables()).toEqual([
      'accounts',
      'credentials',
      'institutions',
      'memberships',
      'schema_migrations',
      'users',
    ]);
    expect(await migrate(db, migrations)).toEqual([]);
  });
});

describe('migrate', () => {
  test('applies in version order, each recorded once', async () => {
    await writeFile(join(dir, '0002_second.sql'), 'ALTER TABLE first ADD COLUMN b integer;');
    await writeFile(join(dir, '0001_first.sql'), 'CREATE TABLE first (a integer);');
    expect(await migrate(db, await loadMigrations(dir))).toEqual([1, 2]);
    await writeFile(join(dir, '0003_third.sql'), 'CREATE TABLE third (c integer);');
    expect(await migrate(db, await loadMigrations(dir))).toEqual([3]);
    const recorded = await db.query<{ version: number; name: string }>(
      'SELECT version, name FROM schema_migrations ORDER BY version',
    );
    expect(recorded).toEqual([
      { version: 1, name: 'first' },
      { version: 2, name: 'second' },
      { version: 3, name: 'third' },
    ]);
  });

  test('a failing migration leaves nothing of itself behind, and stops the run', async () => {
    await writeFile(join(dir, '0001_ok.sql'), 'CREATE TABLE ok (a integer);');
    await writeFile(
      join(dir, '0002_broken.sql'),
      'CREATE TABLE half (a integer);\nSELECT no_such_function();',
    );
    await writeFile(join(dir, '0003_later.sql'), 'CREATE TABLE later (a integer);');
    await expect(migrate(db, await loadMigrations(dir))).rejects.toThrow(/no_such_function/);
    expect(await tables()).toEqual(['ok', 'schema_migrations']);
    const recorded = await db.query<{ version: number }>('SELECT version FROM schema_migrations');
    expect(recorded).toEqual([{ version: 1 }]);
  });

  test('refuses to run when an applied migration was edited, even in line endings only not', async () => {
    await writeFile(join(dir, '0001_first.sql'), 'CREATE TABLE first (a integer);\n');
    await migrate(db, await loadMigrations(dir));
    await writeFile(join(dir, '0001_first.sql'), 'CREATE TABLE first (a integer);\r\n');
    expect(await migrate(db, await loadMigrations(dir))).toEqual([]);
    await writeFile(join(dir, '0001_first.sql'), 'CREATE TABLE first (a bigint);\n');
    await expect(migrate(db, await loadMigrations(dir))).rejects.toThrow(
      /Migration 1_first was changed after it was applied/,
    );
  });

  test('refuses misnamed and duplicate migration files', async () => {
    await writeFile(join(dir, '1_first.sql'), 'SELECT 1;');
    await expect(loadMigrations(dir)).rejects.toThrow(/1_first.sql is not named NNNN_name.sql/);
    await rm(join(dir, '1_first.sql'));
    await writeFile(join(dir, '0001_a.sql'), 'SELECT 1;');
    await writeFile(join(dir, '0001_b.sql'), 'SELECT 1;');
    await expect(loadMigrations(dir)).rejects.toThrow(/Two migration files .* have version 1/);
  });
});
