import { randomUUID } from 'node:crypto';
import type { RunningPostgres } from '@institution-api/test-support/postgres';
import { startPostgresDatabase } from '@institution-api/test-support/postgres-database';
import { skippedFor } from '@institution-api/test-support/requirements';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { StorageUnavailableError } from '../../src/storage/health/unavailable.js';
import { loadMigrations, migrationsDir } from '../../src/storage/migrations.js';
import { openStorage } from '../../src/storage/open-storage.js';
import {
  inPostgresTransaction,
  migratePostgres,
  openPostgresPool,
} from '../../src/storage/postgres-database.js';
import { createPostgresStorage } from '../../src/storage/postgres-storage.js';
import { ReplayedNonceError, type UserDetails } from '../../src/storage/types.js';
import { detailsMigrationContract } from './details-migration-contract.js';
import { institution, person, testKeyring } from './fixtures.js';
import { migrationContract } from './migration-contract.js';
import { type RawSecretRow, storageContract } from './storage-contract.js';

// In CI (which installs postgresql-15) a missing server fails the suite, in startPostgres.
const skipReason = skippedFor('postgres');

describe.skipIf(skipReason)(
  `storage on PostgreSQL 15${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    let server: RunningPostgres | undefined;
    let url = '';
    const pools: pg.Pool[] = [];
    /** Database `name` of this file (its own database when unnamed), in the run's PostgreSQL. */
    const urlOf = (name?: string) => (name ? `${url}_${name}` : url);
    /** A pool on database `name` (with PostgreSQL's `options`), ended after the suite. */
    const poolOn = (name?: string, options?: string) => {
      const pool = new pg.Pool({ connectionString: urlOf(name), options });
      pools.push(pool);
      return pool;
    };
    const createDatabase = async (name: string) => {
      const admin = poolOn();
      const database = new URL(urlOf(name)).pathname.slice(1);
      await admin.query(`DROP DATABASE IF EXISTS ${database}`);
      await admin.query(`CREATE DATABASE ${database}`);
    };
    beforeAll(async () => {
      server = await startPostgresDatabase();
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
      const keyring = testKeyring();
      return {
        storage: createPostgresStorage(pool, keyring),
        keyring,
        withKeys: async (other) => createPostgresStorage(poolOn(), other),
        credentialRows: async () =>
          (await verifier.query<RawSecretRow>('SELECT * FROM credentials ORDER BY public_key'))
            .rows,
        storeInClear: async (publicKey, institutionId, secret) => {
          await verifier.query(
            'INSERT INTO credentials (public_key, institution_id, plaintext_secret) VALUES ($1, $2, $3)',
            [publicKey, institutionId, secret],
          );
        },
        copySealedSecret: async (from, to) => {
          await verifier.query(
            `UPDATE credentials SET (secret_key_id, secret_nonce, secret_ciphertext, secret_tag) =
               (SELECT secret_key_id, secret_nonce, secret_ciphertext, secret_tag
                FROM credentials WHERE public_key = $1)
             WHERE public_key = $2`,
            [from, to],
          );
        },
        count: async (table) =>
          (await verifier.query<{ n: number }>(`SELECT count(*)::integer AS n FROM ${table}`))
            .rows[0]?.n ?? -1,
        reset: async () => {
          await verifier.query('TRUNCATE institutions, users, credential_events CASCADE');
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

    describe('the details document on PostgreSQL', () => {
      let round = 0;
      detailsMigrationContract('postgres', async () => {
        round += 1;
        await createDatabase(`details_${round}`);
        const pool = poolOn(`details_${round}`);
        return {
          migrate: async (migrations) => void (await migratePostgres(pool, migrations)),
          run: async (sql, params) => void (await pool.query(sql, params)),
          storage: async () => {
            const own = poolOn(`details_${round}`);
            await migratePostgres(own, await loadMigrations(migrationsDir('postgres')));
            return createPostgresStorage(own, testKeyring());
          },
          id: (n) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
          boolean: (value) => value,
        };
      });
    });

    /** What a server on PostgreSQL opens its storage with: a key, as every process there shares. */
    const withKey = { defaultDataDir: '/nonexistent', encryptionKeys: testKeyring() };

    test('openStorage connects through postgres:// and postgresql://, migrating once', async () => {
      const first = await openStorage(url, withKey);
      const second = await openStorage(url.replace('postgres://', 'postgresql://'), withKey);
      await expect(first.ping()).resolves.toBeUndefined();
      await expect(second.countInstitutions()).resolves.toBeTypeOf('number');
      await Promise.all([first.close(), second.close()]);
    });

    test('servers starting together on a fresh database migrate it once', async () => {
      await createDatabase('fresh');
      const freshUrl = urlOf('fresh');
      const opened = await Promise.all(
        Array.from({ length: 4 }, () => openStorage(freshUrl, withKey)),
      );
      await Promise.all(opened.map((storage) => storage.close()));
      const rows = await poolOn('fresh').query<{ n: number }>(
        'SELECT count(*)::integer AS n FROM schema_migrations',
      );
      expect(rows.rows[0]?.n).toBe((await loadMigrations(migrationsDir('postgres'))).length);
    });

    test('openStorage refuses PostgreSQL without an encryption key, before connecting', async () => {
      await expect(
        openStorage('postgres://nobody@127.0.0.1:1/none', { defaultDataDir: '/nonexistent' }),
      ).rejects.toThrow(
        /^CREDENTIALS_ENCRYPTION_KEY is required with PostgreSQL .*make one with `openssl rand -base64 32`\.$/,
      );
    });

    describe('writes in batches', () => {
      /** A migrated database of its own, and storages on it, each on a pool of its own. */
      const storagesOn = async (name: string, howMany: number, options?: string) => {
        await createDatabase(name);
        const migrations = await loadMigrations(migrationsDir('postgres'));
        await migratePostgres(poolOn(name), migrations);
        return Array.from({ length: howMany }, () => {
          const pool = poolOn(name, options);
          const statements: string[] = [];
          const query = pool.query.bind(pool) as (config: unknown) => Promise<unknown>;
          // Every statement the storage sends goes through pool.query: record their names.
          pool.query = ((config: { name?: string }) => {
            statements.push(config.name ?? 'unnamed');
            return query(config);
          }) as typeof pool.query;
          return { storage: createPostgresStorage(pool, testKeyring()), statements, pool };
        });
      };

      test('creates asked for at once go out together, in fewer statements than creates', async () => {
        const [server] = await storagesOn('batches', 1);
        if (!server) throw new Error('no storage');
        const banks = await Promise.all(
          Array.from({ length: 5 }, (_, index) => institution(server.storage, `Bank ${index}`)),
        );
        server.statements.length = 0;
        const results = await Promise.all(
          Array.from({ length: 40 }, (_, index) =>
            server.storage.createOrAddUser(banks[index % banks.length] ?? '', person()),
          ),
        );
        expect(results.every((result) => result.created)).toBe(true);
        expect(new Set(results.map((result) => result.user.id)).size).toBe(40);
        expect(server.statements.every((name) => name === 'create-users')).toBe(true);
        expect(server.statements.length).toBeLessThan(10);
        const counts = await server.pool.query<{ users: number; members: number }>(
          `SELECT (SELECT count(*)::integer FROM users) AS users,
                  (SELECT count(*)::integer FROM memberships) AS members`,
        );
        expect(counts.rows[0]).toEqual({ users: 40, members: 40 });
      });

      test('two servers creating the same people at once, in opposite orders: one user each, both memberships, no deadlock', async () => {
        const [a, b] = await storagesOn('two_servers', 2);
        if (!a || !b) throw new Error('no storages');
        const bankA = await institution(a.storage, 'Bank A');
        const bankB = await institution(b.storage, 'Bank B');
        // Without the card-number order, about one round in three deadlocked (PostgreSQL then
        // aborts one batch after a second, and its creates go alone: right answers, a slow second).
        for (let round = 0; round < 3; round++) {
          const people = Array.from({ length: 30 }, () => person());
          const [fromA, fromB] = await Promise.all([
            Promise.all(people.map((details) => a.storage.createOrAddUser(bankA, details))),
            Promise.all(
              [...people].reverse().map((details) => b.storage.createOrAddUser(bankB, details)),
            ),
          ]);
          const ids = fromA.map((result) => result.user.id);
          expect(fromB.reverse().map((result) => result.user.id)).toEqual(ids);
          expect(new Set(ids).size).toBe(30);
          expect([...fromA, ...fromB].filter((result) => result.created)).toHaveLength(30);
        }
        const { rows } = await a.pool.query<{ users: number; members: number; deadlocks: string }>(
          `SELECT (SELECT count(*)::integer FROM users) AS users,
                  (SELECT count(*)::integer FROM memberships) AS members,
                  (SELECT deadlocks FROM pg_stat_database WHERE datname = current_database())`,
        );
        expect(rows[0]).toEqual({ users: 90, members: 180, deadlocks: '0' });
      });

      test('updates asked for at once go out together, in fewer statements than updates', async () => {
        const [server] = await storagesOn('update_batches', 1);
        if (!server) throw new Error('no storage');
        const bank = await institution(server.storage, 'Bank A');
        const people = Array.from({ length: 40 }, () => person());
        const users = await Promise.all(
          people.map(async (details) => (await server.storage.createOrAddUser(bank, details)).user),
        );
        server.statements.length = 0;
        const updated = await Promise.all(
          users.map((user, index) =>
            server.storage.updateUser(bank, user.id, {
              ...people[index],
              lastName: `Batch ${index}`,
            } as UserDetails),
          ),
        );
        expect(updated.map((user) => user?.lastName)).toEqual(
          people.map((_, index) => `Batch ${index}`),
        );
        expect(server.statements.every((name) => name === 'update-users')).toBe(true);
        expect(server.statements.length).toBeLessThan(10);
      });

      test('two servers updating the same users at once, in opposite orders: each update made, no deadlock', async () => {
        // The plan of a large table (users found through their index, in the batch's order), which
        // a table of 30 users would not get: PostgreSQL would scan and hash it instead.
        const [a, b] = await storagesOn('two_servers_updating', 2, '-c enable_seqscan=off');
        if (!a || !b) throw new Error('no storages');
        const bankA = await institution(a.storage, 'Bank A');
        const bankB = await institution(b.storage, 'Bank B');
        const people = Array.from({ length: 30 }, () => person());
        const users = await Promise.all(
          people.map(async (details) => {
            await b.storage.createOrAddUser(bankB, details);
            return (await a.storage.createOrAddUser(bankA, details)).user;
          }),
        );
        for (let round = 0; round < 3; round++) {
          const edit = (server: string, index: number) =>
            ({ ...people[index], lastName: `${server} ${round}` }) as UserDetails;
          const [fromA, fromB] = await Promise.all([
            Promise.all(
              users.map((user, index) => a.storage.updateUser(bankA, user.id, edit('A', index))),
            ),
            Promise.all(
              [...users.entries()]
                .reverse()
                .map(([index, user]) => b.storage.updateUser(bankB, user.id, edit('B', index))),
            ),
          ]);
          expect(fromA.map((user) => user?.lastName)).toEqual(users.map(() => `A ${round}`));
          expect(fromB.map((user) => user?.lastName)).toEqual(users.map(() => `B ${round}`));
        }
        const { rows } = await a.pool.query<{ users: number; deadlocks: string }>(
          `SELECT (SELECT count(*)::integer FROM users) AS users,
                  (SELECT deadlocks FROM pg_stat_database WHERE datname = current_database())`,
        );
        expect(rows[0]).toEqual({ users: 30, deadlocks: '0' });
      });
    });

    /**
     * Three storages on pools of their own, as three server processes are, on a new migrated
     * database; `statements` records the name of each statement they send.
     */
    const storagesAsProcesses = async (database: string) => {
      await createDatabase(database);
      await migratePostgres(poolOn(database), await loadMigrations(migrationsDir('postgres')));
      const statements: string[] = [];
      const storages = Array.from({ length: 3 }, () => {
        const pool = poolOn(database);
        const query = pool.query.bind(pool) as (config: unknown) => Promise<unknown>;
        pool.query = ((config: { name?: string }) => {
          statements.push(config.name ?? 'unnamed');
          return query(config);
        }) as typeof pool.query;
        return createPostgresStorage(pool, testKeyring());
      });
      return { storages, statements };
    };

    test('nonce claims of storages on pools of their own, as server processes are: each nonce wins once in all, batched', async () => {
      const { storages, statements } = await storagesAsProcesses('nonces');
      const now = new Date();
      const expiresAt = new Date(now.getTime() + 301_000);
      // Each of 30 nonces claimed by each of the three storages at once (in the opposite order by
      // one of them): 90 claims, 30 wins.
      const claims = storages.flatMap((storage, s) =>
        Array.from({ length: 30 }, (_, i) =>
          storage
            .claimNonce({ publicKey: 'pk_a', nonce: `n${s === 1 ? 29 - i : i}`, expiresAt, now })
            .then((won) => (won ? `n${s === 1 ? 29 - i : i}` : undefined)),
        ),
      );
      const won = (await Promise.all(claims)).filter((nonce) => nonce !== undefined);
      expect(won.sort()).toEqual(Array.from({ length: 30 }, (_, i) => `n${i}`).sort());
      expect(statements.every((name) => name === 'claim-nonces')).toBe(true);
      expect(statements.length).toBeLessThan(30);
      const { rows } = await poolOn('nonces').query<{ n: number; deadlocks: string }>(
        `SELECT (SELECT count(*)::integer FROM message_signature_nonces) AS n,
                (SELECT deadlocks FROM pg_stat_database WHERE datname = current_database())`,
      );
      expect(rows[0]).toEqual({ n: 30, deadlocks: '0' });
    });

    test("creates carrying nonces, on storages on pools of their own: each nonce makes one user, claimed by the create's own statement", async () => {
      const { storages, statements } = await storagesAsProcesses('nonce_writes');
      const bank = await institution(storages[0] as (typeof storages)[number], 'Bank A');
      statements.length = 0;
      const now = new Date();
      const expiresAt = new Date(now.getTime() + 301_000);
      // Each of 20 nonces carried by a create of another person in each of the three storages, at
      // once (in the opposite order by one of them): 60 creates, 20 users, 40 replays.
      const creates = storages.flatMap((storage, s) =>
        Array.from({ length: 20 }, (_, i) => {
          const nonce = `n${s === 1 ? 19 - i : i}`;
          return storage
            .createOrAddUser(bank, person(), { publicKey: 'pk_a', nonce, expiresAt, now })
            .then(
              () => nonce,
              (error: unknown) => {
                expect(error).toBeInstanceOf(ReplayedNonceError);
                return undefined;
              },
            );
        }),
      );
      const made = (await Promise.all(creates)).filter((nonce) => nonce !== undefined);
      expect(made.sort()).toEqual(Array.from({ length: 20 }, (_, i) => `n${i}`).sort());
      expect(statements.every((name) => name === 'create-users-claiming')).toBe(true);
      const { rows } = await poolOn('nonce_writes').query<{
        users: number;
        nonces: number;
        deadlocks: string;
      }>(
        `SELECT (SELECT count(*)::integer FROM users) AS users,
                (SELECT count(*)::integer FROM message_signature_nonces) AS nonces,
                (SELECT deadlocks FROM pg_stat_database WHERE datname = current_database())`,
      );
      expect(rows[0]).toEqual({ users: 20, nonces: 20, deadlocks: '0' });
    });

    test('a nonce claim on a PostgreSQL that cannot be reached fails as unavailable, never true', async () => {
      const pool = openPostgresPool('postgres://nobody@127.0.0.1:1/none');
      pools.push(pool);
      const now = new Date();
      const claim = createPostgresStorage(pool, testKeyring()).claimNonce({
        publicKey: 'pk_a',
        nonce: 'n',
        expiresAt: new Date(now.getTime() + 301_000),
        now,
      });
      await expect(claim).rejects.toBeInstanceOf(StorageUnavailableError);
    });

    test('updates at once on a PostgreSQL that cannot be reached each fail as unavailable', async () => {
      const pool = openPostgresPool('postgres://nobody@127.0.0.1:1/none');
      pools.push(pool);
      const storage = createPostgresStorage(pool, testKeyring());
      const [one, other] = [randomUUID(), randomUUID()];
      const outcomes = await Promise.allSettled(
        [one, other, one].map((id) => storage.updateUser(randomUUID(), id, person())),
      );
      for (const outcome of outcomes) {
        expect(outcome).toMatchObject({
          status: 'rejected',
          reason: expect.any(StorageUnavailableError),
        });
      }
    });

    test('rate limiters of storages on pools of their own, as server processes are, share one count', async () => {
      await createDatabase('rate_limits');
      await migratePostgres(poolOn('rate_limits'), await loadMigrations(migrationsDir('postgres')));
      const limiters = Array.from({ length: 3 }, () =>
        createPostgresStorage(poolOn('rate_limits'), testKeyring()).rateLimiter(10, 60),
      );
      const windows = await Promise.all(
        Array.from({ length: 30 }, (_, i) => limiters[i % 3]?.consume('institution-a')),
      );
      const allowed = windows.filter((window) => window?.allowed);
      expect(allowed).toHaveLength(10);
      expect(
        allowed.map((window) => window?.remaining).sort((a, b) => (a ?? 0) - (b ?? 0)),
      ).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      const { rows } = await poolOn('rate_limits').query<{ key: string; points: number }>(
        'SELECT key, points FROM rate_limits',
      );
      // Refused requests count too, until this process remembers the window as spent.
      expect(rows).toEqual([{ key: 'requests:institution-a', points: expect.any(Number) }]);
      expect(rows[0]?.points).toBeGreaterThanOrEqual(11);
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
