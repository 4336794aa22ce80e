import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, expect, test } from 'vitest';
import {
  checksumsFileName,
  type Dialect,
  loadMigrations,
  migrationChecksum,
  migrationsDir,
} from '../../src/storage/migrations.js';
import { credentialEventKinds } from '../../src/storage/types.js';

/** An empty database of one engine, and that engine's migration runner. */
export interface MigrationsUnderTest {
  /** Applies the migrations of `dir`; the versions it applied. */
  migrate(dir: string): Promise<number[]>;
  /** The names of the tables, sorted. */
  tables(): Promise<string[]>;
  /** The rows of schema_migrations, by version. */
  recorded(): Promise<{ version: number; name: string }[]>;
}

/**
 * The behaviour of an engine's migration runner (src/storage/migrations.ts and the engine's
 * migrate function). `fresh` gives an empty database before each test.
 */
export function migrationContract(dialect: Dialect, fresh: () => Promise<MigrationsUnderTest>) {
  let db: MigrationsUnderTest;
  let dir: string;
  beforeEach(async () => {
    db = await fresh();
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = await mkdtemp(join(tmpdir(), 'reference-server-migrations-'));
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test(`the ${dialect} schema allows exactly the credential events the storage records`, async () => {
    const sql = (await loadMigrations(migrationsDir(dialect))).map((m) => m.sql).join('\n');
    // The last migration that sets the constraint is the one in force.
    const check = [...sql.matchAll(/CHECK \(what IN \(([^)]*)\)\)/g)].at(-1)?.[1];
    const allowed = [...(check ?? '').matchAll(/'([^']+)'/g)].map((m) => m[1]);
    expect(allowed.sort()).toEqual([...credentialEventKinds].sort());
  });

  test(`the package's ${dialect} migrations are numbered from 0001 and create the tables`, async () => {
    const files = await loadMigrations(migrationsDir(dialect));
    const versions = files.map((m) => m.version);
    // In order from 1, not necessarily consecutive: branches developed at the same time agree
    // their numbers beforehand, and one may be merged before another. SQLite has no rate_limits:
    // there the counts live in the one server process (src/storage/rate-limits/rate-limiters.ts).
    expect(versions[0]).toBe(1);
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    expect(await db.migrate(migrationsDir(dialect))).toEqual(versions);
    expect(await db.tables()).toEqual([
      'accounts',
      'credential_events',
      'credentials',
      'institutions',
      'memberships',
      'message_signature_nonces',
      ...(dialect === 'postgres' ? ['rate_limits'] : []),
      'schema_migrations',
      'users',
    ]);
    expect(await db.migrate(migrationsDir(dialect))).toEqual([]);
  });

  test('applies in version order, each recorded once', async () => {
    await writeFile(join(dir, '0002_second.sql'), 'ALTER TABLE first ADD COLUMN b integer;');
    await writeFile(join(dir, '0001_first.sql'), 'CREATE TABLE first (a integer);');
    expect(await db.migrate(dir)).toEqual([1, 2]);
    await writeFile(join(dir, '0003_third.sql'), 'CREATE TABLE third (c integer);');
    expect(await db.migrate(dir)).toEqual([3]);
    expect(await db.recorded()).toEqual([
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
    await expect(db.migrate(dir)).rejects.toThrow(/no_such_function/);
    expect(await db.tables()).toEqual(['ok', 'schema_migrations']);
    expect(await db.recorded()).toEqual([{ version: 1, name: 'ok' }]);
  });

  test('refuses to run when an applied migration was edited, even in line endings only not', async () => {
    await writeFile(join(dir, '0001_first.sql'), 'CREATE TABLE first (a integer);\n');
    await db.migrate(dir);
    await writeFile(join(dir, '0001_first.sql'), 'CREATE TABLE first (a integer);\r\n');
    expect(await db.migrate(dir)).toEqual([]);
    await writeFile(join(dir, '0001_first.sql'), 'CREATE TABLE first (a bigint);\n');
    await expect(db.migrate(dir)).rejects.toThrow(
      /Migration 1_first was changed after it was applied/,
    );
  });

  test('opens a database that recorded a released earlier form of a file, and refuses any other', async () => {
    const released = 'CREATE TABLE first (a integer); -- as a released build had it\n';
    const restored = 'CREATE TABLE first (a integer); -- as first written\n';
    await writeFile(join(dir, '0001_first.sql'), released);
    await db.migrate(dir);
    await writeFile(join(dir, '0001_first.sql'), restored);
    await expect(db.migrate(dir)).rejects.toThrow(/Migration 1_first was changed/);
    await writeFile(
      join(dir, checksumsFileName),
      JSON.stringify({
        '0001_first.sql': {
          sha256: migrationChecksum(restored),
          alsoAccepted: [migrationChecksum(released)],
        },
      }),
    );
    expect(await db.migrate(dir)).toEqual([]);
    await writeFile(join(dir, '0001_first.sql'), restored.replace('integer', 'bigint'));
    await expect(db.migrate(dir)).rejects.toThrow(/Migration 1_first was changed/);
  });
}
