import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadMigrations, migrationsDir } from '../../src/storage/migrations.js';
import { openStorage } from '../../src/storage/open-storage.js';
import { inPostgresTransaction, migratePostgres } from '../../src/storage/postgres-database.js';
import { createPostgresStorage } from '../../src/storage/postgres-storage.js';
import {
  postgresUnavailableReason,
  type RunningPostgres,
  startPostgres,
} from '../support/postgres.js';
import { migrationContract } from './migration-contract.js';
import { storageContract } from './storage-contract.js';

const unavailable = postgresUnavailableReason();
// CI installs postgresql-15, so there a missing server fails the suite (in startPostgres) instead.
const skipReason = unavailable && !process.env.CI ? unavailable : undefined;
if (skipReason) console.warn(`PostgreSQL storage suite skipped: ${skipReason}`);

describe.skipIf(skipReason)(
  `storage on PostgreSQL 15${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    let server: RunningPostgres | undefined;
    let url = '';
    const pools: pg.Pool[] = [];
    /** A pool on database `name` of the test server, ended after the suite. */
    const poolOn = (name = 'postgres') => {
      const pool = new pg.Pool({ connectionString: url.replace(/\/postgres$/, `/${name}`) });
      pools.push(pool);
      return pool;
    };
    const createDatabase = async (name: string) => {
      const admin = poolOn();
      await admin.query(`DROP DATABASE IF EXISTS ${name}`);
      await admin.query(`CREATE DATABASE ${name}`);
    };
    beforeAll(async () => {
      server = await startPostgres();
      url = server.url;
    });
    afterAll(async () => {
      await Promise.allSettled(pools.map((pool) => pool.end()));
      await server?.stop();
    });

    storageContract(async () => {
      const pool = new pg.Pool({ connectionString: url });
      const migrate = async () =>
        migratePostgres(pool, await loadMigrations(migrationsDir('postgres')));
      await migrate();
      const verifier = poolOn();
      return {
        storage: createPostgresStorage(pool),
        count: async (table) =>
          (await verifier.query<{ n: number }>(`SELECT count(*)::integer AS n FROM ${table}`))
            .rows[0]?.n ?? -1,
        reset: async () => {
          await verifier.query('TRUNCATE institutions, users CASCADE');
        },
        migrateAgain: migrate,
        versions: async () => ({
          recorded: (
            await verifier.query<{ version: number }>(
              'SELECT version FROM schema_migrations ORDER BY version',
            )
          ).rows.map((row) => row.version),
          files: (await loadMigrations(migrationsDir('postgres'))).map((m) => m.version),
        }),
      };
    });

    describe('migrations on PostgreSQL', () => {
      let round = 0;
      migrationContract('postgres', async () => {
        round += 1;
        await createDatabase(`migrations_${round}`);
        const pool = poolOn(`migrations_${round}`);
        return {
          migrate: async (dir) => migratePostgres(pool, await loadMigrations(dir)),
          tables: async () =>
            (
              await pool.query<{ name: string }>(
                `SELECT table_name AS name FROM information_schema.tables
                 WHERE table_schema = 'public' ORDER BY table_name`,
              )
            ).rows.map((row) => row.name),
          recorded: async () =>
            (
              await pool.query<{ version: number; name: string }>(
                'SELECT version, name FROM schema_migrations ORDER BY version',
              )
            ).rows,
        };
      });
    });

    test('openStorage connects through postgres:// and postgresql://, migrating once', async () => {
      const first = await openStorage(url, { defaultDataDir: '/nonexistent' });
      const second = await openStorage(url.replace('postgres://', 'postgresql://'), {
        defaultDataDir: '/nonexistent',
      });
      await expect(first.ping()).resolves.toBeUndefined();
      await expect(second.countInstitutions()).resolves.toBeTypeOf('number');
      await Promise.all([first.close(), second.close()]);
    });

    test('servers starting together on a fresh database migrate it once', async () => {
      await createDatabase('fresh');
      const freshUrl = url.replace(/\/postgres$/, '/fresh');
      const opened = await Promise.all(
        Array.from({ length: 4 }, () => openStorage(freshUrl, { defaultDataDir: '/nonexistent' })),
      );
      await Promise.all(opened.map((storage) => storage.close()));
      const rows = await poolOn('fresh').query<{ n: number }>(
        'SELECT count(*)::integer AS n FROM schema_migrations',
      );
      expect(rows.rows[0]?.n).toBe(1);
    });

    test('a failed transaction gives its connection back rolled back', async () => {
      const pool = poolOn();
      await pool.query('CREATE TABLE IF NOT EXISTS rollback_probe (n integer)');
      await expect(
        inPostgresTransaction(pool, async (client) => {
          await client.query('INSERT INTO rollback_probe VALUES (1)');
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      const rows = await pool.query<{ n: number }>(
        'SELECT count(*)::integer AS n FROM rollback_probe',
      );
      expect(rows.rows[0]?.n).toBe(0);
    });
  },
);
