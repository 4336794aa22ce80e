// Secrets stored in clear by the versions before migration 0002 are encrypted at the first start
// with a key, nothing lost, and then no byte search of what an attacker could copy (the SQLite
// file and its log; a pg_dump) finds them (spec Assumptions, "Secrets at rest").
import { execFile as execFileCallback } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { postgresBinDir, type RunningPostgres } from '@institution-api/test-support/postgres';
import { startPostgresDatabase } from '@institution-api/test-support/postgres-database';
import { skippedFor } from '@institution-api/test-support/requirements';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { randomEncryptionKey } from '../../src/credentials/encryption-key.js';
import { loadMigrations, migrationsDir } from '../../src/storage/migrations.js';
import { openStorage, sqliteFileName } from '../../src/storage/open-storage.js';
import { migratePostgres } from '../../src/storage/postgres-database.js';
import { migrateSqlite, openSqliteDatabase } from '../../src/storage/sqlite-database.js';
import type { CredentialEvent } from '../../src/storage/types.js';

const execFile = promisify(execFileCallback);

/** Two secrets as an earlier version provisioned them; each must vanish from every byte stored. */
const legacy = [
  { publicKey: 'pk_legacy_one', secret: 'sk_legacy_secret_one_Zq81vN0pXw4Lr7' },
  { publicKey: 'pk_legacy_two', secret: 'sk_legacy_secret_two_Hd93kQ2mYb6Tt5' },
];

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'reference-server-at-rest-'));
});
afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** A folder of migrations holding only 0001 of `dialect`: the schema of the earlier versions. */
async function firstMigrationOnly(dialect: 'sqlite' | 'postgres'): Promise<string> {
  const dir = join(scratch, `0001-${dialect}`);
  await mkdir(dir, { recursive: true });
  await copyFile(join(migrationsDir(dialect), '0001_initial.sql'), join(dir, '0001_initial.sql'));
  return dir;
}

/** Which of the legacy secrets occur in `bytes`. */
const secretsIn = (bytes: Buffer) =>
  legacy.filter(({ secret }) => bytes.includes(Buffer.from(secret))).map(({ secret }) => secret);

/** The database file and its write-ahead log, as a copy of the directory would take them. */
const sqliteBytes = (file: string) =>
  Buffer.concat([
    readFileSync(file),
    existsSync(`${file}-wal`) ? readFileSync(`${file}-wal`) : Buffer.alloc(0),
  ]);

const encryptedOnes = (events: CredentialEvent[]) =>
  events.map((event) => [event.what, event.publicKey, event.actor]);

describe('on SQLite', () => {
  test('the first start encrypts secrets stored in clear; then neither the file nor its log holds them', async () => {
    // An earlier version's database, killed while running: one secret checkpointed into the
    // file, the other only in the write-ahead log. secure_delete was off then.
    const running = join(scratch, 'running', sqliteFileName);
    const db = openSqliteDatabase(running);
    db.exec('PRAGMA secure_delete = OFF; PRAGMA wal_autocheckpoint = 0');
    migrateSqlite(db, await loadMigrations(await firstMigrationOnly('sqlite')));
    db.prepare("INSERT INTO institutions (id, name) VALUES ('i-1', 'Old Bank')").run();
    const insert = db.prepare(
      "INSERT INTO credentials (public_key, institution_id, secret_key) VALUES (?, 'i-1', ?)",
    );
    insert.run(legacy[0]?.publicKey ?? '', legacy[0]?.secret ?? '');
    db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    insert.run(legacy[1]?.publicKey ?? '', legacy[1]?.secret ?? '');
    const crashed = join(scratch, 'crashed');
    await mkdir(crashed);
    const file = join(crashed, sqliteFileName);
    copyFileSync(running, file);
    copyFileSync(`${running}-wal`, `${file}-wal`);
    db.close();
    // The test can fail: the copy holds the secrets, the first in the file, both in the log (the
    // second insert logged the whole page, with the first row beside it).
    expect(secretsIn(readFileSync(file))).toEqual([legacy[0]?.secret]);
    expect(secretsIn(readFileSync(`${file}-wal`))).toEqual(legacy.map(({ secret }) => secret));

    let events: CredentialEvent[] = [];
    const storage = await openStorage(crashed, {
      defaultDataDir: '/nonexistent',
      onCredentialEvents: (recorded) => {
        events = recorded;
      },
    });
    try {
      expect(encryptedOnes(events)).toEqual([
        ['encrypted', 'pk_legacy_one', 'start'],
        ['encrypted', 'pk_legacy_two', 'start'],
      ]);
      for (const { publicKey, secret } of legacy) {
        expect(await storage.findCredential(publicKey)).toMatchObject({
          institution: 'Old Bank',
          secretKey: secret,
        });
      }
      // While the server runs on it, and after it stopped.
      expect(secretsIn(sqliteBytes(file))).toEqual([]);
    } finally {
      await storage.close();
    }
    expect(secretsIn(sqliteBytes(file))).toEqual([]);
    const grep = await execFile('grep', ['-a', '-c', '-F', legacy[0]?.secret ?? '', file]).then(
      () => 'found',
      (error: { code?: number }) => (error.code === 1 ? 'not found' : `grep failed: ${error.code}`),
    );
    expect(grep).toBe('not found');
  });
});

// In CI (which installs postgresql-15) a missing server fails the suite, in startPostgres.
const skipReason = skippedFor('postgres');

describe.skipIf(skipReason)(
  `on PostgreSQL 15${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    let server: RunningPostgres | undefined;
    beforeAll(async () => {
      server = await startPostgresDatabase();
    });
    afterAll(async () => {
      await server?.stop();
    });

    /** `pg_dump` of the database, as a backup would take it. */
    const dump = async (url: string) => {
      const { hostname, port, pathname } = new URL(url);
      const { stdout } = await execFile(
        join(postgresBinDir, 'pg_dump'),
        ['-h', hostname, '-p', port, '-U', 'postgres', '-d', pathname.slice(1)],
        { maxBuffer: 64 << 20 },
      );
      return Buffer.from(stdout);
    };

    test('the first start with a key encrypts secrets stored in clear; then pg_dump holds none', async () => {
      if (!server) throw new Error('no PostgreSQL');
      // the file's own database, empty
      const url = server.url;
      const pool = new pg.Pool({ connectionString: url });
      try {
        await migratePostgres(pool, await loadMigrations(await firstMigrationOnly('postgres')));
        const { rows } = await pool.query<{ id: string }>(
          "INSERT INTO institutions (name) VALUES ('Old Bank') RETURNING id",
        );
        for (const { publicKey, secret } of legacy) {
          await pool.query(
            'INSERT INTO credentials (public_key, institution_id, secret_key) VALUES ($1, $2, $3)',
            [publicKey, rows[0]?.id, secret],
          );
        }
      } finally {
        await pool.end();
      }
      expect(secretsIn(await dump(url))).toEqual(legacy.map(({ secret }) => secret));

      let events: CredentialEvent[] = [];
      const storage = await openStorage(url, {
        defaultDataDir: '/nonexistent',
        encryptionKeys: { current: randomEncryptionKey() },
        onCredentialEvents: (recorded) => {
          events = recorded;
        },
      });
      try {
        expect(encryptedOnes(events)).toEqual([
          ['encrypted', 'pk_legacy_one', 'start'],
          ['encrypted', 'pk_legacy_two', 'start'],
        ]);
        for (const { publicKey, secret } of legacy) {
          expect((await storage.findCredential(publicKey))?.secretKey).toBe(secret);
        }
      } finally {
        await storage.close();
      }
      const after = await dump(url);
      expect(after.includes(Buffer.from('pk_legacy_one'))).toBe(true); // the rows are in the dump
      expect(secretsIn(after)).toEqual([]);
    });
  },
);
