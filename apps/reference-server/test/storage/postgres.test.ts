import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openStorage } from '../../src/storage/open-storage.js';
import { openPgDatabase } from '../../src/storage/pg-database.js';
import {
  postgresUnavailableReason,
  type RunningPostgres,
  startPostgres,
} from '../support/postgres.js';
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
    beforeAll(async () => {
      server = await startPostgres();
      url = server.url;
    });
    afterAll(async () => {
      await server?.stop();
    });

    storageContract(async () => openPgDatabase(url));

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
      const admin = openPgDatabase(url);
      await admin.exec('DROP DATABASE IF EXISTS fresh');
      await admin.exec('CREATE DATABASE fresh');
      const freshUrl = url.replace(/\/postgres$/, '/fresh');
      const opened = await Promise.all(
        Array.from({ length: 4 }, () => openStorage(freshUrl, { defaultDataDir: '/nonexistent' })),
      );
      await Promise.all(opened.map((storage) => storage.close()));
      const fresh = openPgDatabase(freshUrl);
      const rows = await fresh.query<{ n: number }>(
        'SELECT count(*)::integer AS n FROM schema_migrations',
      );
      expect(rows[0]?.n).toBe(1);
      await fresh.close();
      await admin.close();
    });

    test('a failed transaction gives its connection back rolled back', async () => {
      const db = openPgDatabase(url);
      await db.exec('CREATE TABLE IF NOT EXISTS rollback_probe (n integer)');
      await expect(
        db.transaction(async (tx) => {
          await tx.query('INSERT INTO rollback_probe VALUES (1)');
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      const rows = await db.query<{ n: number }>(
        'SELECT count(*)::integer AS n FROM rollback_probe',
      );
      expect(rows[0]?.n).toBe(0);
      await db.close();
    });
  },
);
