// An upgrade keeps every database: a SQLite data directory and a PostgreSQL database written by
// each released build with a fixture (fixtures/<commit>/, made by make-fixture.ts) open with the
// built server of this tree, which migrates them and answers their users and key pairs as that
// build did, their secrets still encrypted at rest (spec Assumptions, "Key lifecycle", "Secrets at
// rest").
import { execFile as execFileCallback } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { promisify } from 'node:util';
import { postgresBinDir, type RunningPostgres } from '@institution-api/test-support/postgres';
import { startPostgresDatabase } from '@institution-api/test-support/postgres-database';
import {
  type RunningServer,
  referenceServerMain,
  startReferenceServer,
  testCredentialsEncryptionKey,
} from '@institution-api/test-support/reference-server';
import { skippedFor } from '@institution-api/test-support/requirements';
import { distinctUserBody } from '@institution-api/test-support/user-bodies';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadMigrations, migrationsDir } from '../../src/storage/migrations.js';
import {
  dumpPostgres,
  engines,
  type FixtureRecord,
  fixtureCommits,
  fixtureDir,
  postgresDumpFile,
  recordFile,
  sendSigned,
  sqliteFiles,
} from './fixture.ts';

const execFile = promisify(execFileCallback);
const users = '/api/v1/external/users';
const credentialsCommand = join(
  dirname(referenceServerMain()),
  'credentials/credentials-command.js',
);

// In CI (which installs postgresql-15) a missing server fails the suite, in startPostgres.
const skipPostgres = skippedFor('postgres');

/** A fixture's database, copied or restored where the current server may change it. */
interface Upgraded {
  databaseUrl: string;
  /** CREDENTIALS_ENCRYPTION_KEY: none on SQLite, whose key file is in the fixture. */
  env: Record<string, string>;
  /** The versions in `schema_migrations` now. */
  migrations(): Promise<number[]>;
  /** Every byte a copy of the database would hold: the SQLite file and its log, or a pg_dump. */
  bytes(): Promise<Buffer>;
  drop(): Promise<void>;
}

async function copySqlite(commit: string): Promise<Upgraded> {
  const dir = await mkdtemp(join(tmpdir(), `reference-server-upgrade-${commit}-`));
  await cp(fixtureDir(commit, 'sqlite'), dir, {
    recursive: true,
    filter: (source) => !source.endsWith(recordFile),
  });
  const file = join(dir, sqliteFiles[0] ?? '');
  return {
    databaseUrl: dir,
    env: { CREDENTIALS_ENCRYPTION_KEY: '' },
    migrations: async () => {
      const db = new DatabaseSync(file, { readOnly: true });
      try {
        return db
          .prepare('SELECT version FROM schema_migrations ORDER BY version')
          .all()
          .map((row) => Number(row.version));
      } finally {
        db.close();
      }
    },
    bytes: async () =>
      Buffer.concat([
        readFileSync(file),
        existsSync(`${file}-wal`) ? readFileSync(`${file}-wal`) : Buffer.alloc(0),
      ]),
    drop: () => rm(dir, { recursive: true, force: true }),
  };
}

async function restorePostgres(commit: string): Promise<Upgraded> {
  const postgres: RunningPostgres = await startPostgresDatabase();
  await execFile(join(postgresBinDir, 'psql'), [
    ...['-d', postgres.url, '-X', '-q', '-v', 'ON_ERROR_STOP=1'],
    ...['-f', join(fixtureDir(commit, 'postgres'), postgresDumpFile)],
  ]);
  return {
    databaseUrl: postgres.url,
    env: { CREDENTIALS_ENCRYPTION_KEY: testCredentialsEncryptionKey },
    migrations: async () =>
      (await postgres.psql('SELECT version FROM schema_migrations ORDER BY version'))
        .split('\n')
        .map(Number),
    bytes: async () => Buffer.from(await dumpPostgres(postgres.url)),
    drop: () => postgres.stop(),
  };
}

const cases = fixtureCommits().flatMap((commit) =>
  engines.map((engine) => ({
    commit,
    engine,
    name:
      engine === 'sqlite'
        ? 'SQLite'
        : `PostgreSQL${skipPostgres ? ` (skipped: ${skipPostgres})` : ''}`,
  })),
);

describe.each(cases)('a $name database written by the build of $commit', ({ commit, engine }) => {
  const skip = engine === 'postgres' && Boolean(skipPostgres);
  const record = JSON.parse(
    readFileSync(join(fixtureDir(commit, engine), recordFile), 'utf8'),
  ) as FixtureRecord;
  let database: Upgraded | undefined;
  let server: RunningServer | undefined;

  beforeAll(async () => {
    if (skip) return;
    database = await (engine === 'sqlite' ? copySqlite(commit) : restorePostgres(commit));
    // As an operator upgrades: the same INSTITUTION_CREDENTIALS and key as the build ran with.
    server = await startReferenceServer({
      databaseUrl: database.databaseUrl,
      credentials: record.institutionCredentials,
      env: database.env,
    });
  });
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  const credential = (publicKey: string) => {
    const found = record.credentials.find((pair) => pair.publicKey === publicKey);
    if (!found) throw new Error(`the fixture has no key pair ${publicKey}`);
    return found;
  };

  test.skipIf(skip)('starts, and applies the migrations its build did not have', async () => {
    const current = (await loadMigrations(migrationsDir(engine))).map((m) => m.version);
    expect(await database?.migrations()).toEqual(current);
    expect(current).toEqual(expect.arrayContaining(record.migrations));
  });

  test.skipIf(skip)(
    'answers each stored user as its build did: a create again 200, an update by id 200',
    async () => {
      expect(record.users.length).toBeGreaterThan(0);
      for (const user of record.users) {
        const signer = credential(user.signer);
        const url = server?.url ?? '';
        expect(await sendSigned(url, signer, 'POST', users, user.body)).toEqual({
          status: 200,
          body: user.created,
        });
        expect(await sendSigned(url, signer, 'PUT', `${users}/${user.id}`, user.body)).toEqual({
          status: 200,
          body: user.updated,
        });
      }
    },
  );

  test.skipIf(skip)(
    'each key pair it stored signs with its policy; the revoked one is refused 401',
    async () => {
      const statuses = [];
      for (const pair of record.credentials) {
        const { status } = await sendSigned(server?.url ?? '', pair, 'POST', users, {
          ...distinctUserBody(),
        });
        statuses.push({ publicKey: pair.publicKey, policy: pair.policy, status });
        if (pair.policy === 'message-signature' && !pair.revoked) {
          // Its policy came along: the Authorization header alone is not enough.
          const bare = await sendSigned(
            server?.url ?? '',
            { ...pair, policy: 'any' },
            'POST',
            users,
            {
              ...distinctUserBody(),
            },
          );
          expect(bare.status, `${pair.publicKey} without a message signature`).toBe(401);
        }
      }
      expect(statuses).toEqual(
        record.credentials.map(({ publicKey, policy, revoked }) => ({
          publicKey,
          policy,
          status: revoked ? 401 : 201,
        })),
      );
      expect(new Set(record.credentials.map((pair) => pair.source))).toEqual(
        new Set(['INSTITUTION_CREDENTIALS', 'issued']),
      );
    },
  );

  test.skipIf(skip)('`credentials list` lists its key pairs, the revoked one revoked', async () => {
    const { stdout } = await execFile(process.execPath, [credentialsCommand, 'list', '--json'], {
      env: { ...process.env, DATABASE_URL: database?.databaseUrl ?? '', ...database?.env },
    });
    const listed = (JSON.parse(stdout) as { publicKey: string; revokedAt: string | null }[]).map(
      ({ publicKey, revokedAt }) => ({ publicKey, revoked: revokedAt !== null }),
    );
    expect(listed).toEqual(
      expect.arrayContaining(
        record.credentials.map(({ publicKey, revoked }) => ({ publicKey, revoked })),
      ),
    );
  });

  test.skipIf(skip)('keeps every secret encrypted at rest', async () => {
    const bytes = (await database?.bytes()) ?? Buffer.alloc(0);
    const found = (text: string) => bytes.includes(Buffer.from(text));
    // The search finds what is stored in clear: the public keys.
    expect(record.credentials.filter(({ publicKey }) => !found(publicKey))).toEqual([]);
    expect(record.credentials.filter(({ secretKey }) => found(secretKey))).toEqual([]);
  });
});
