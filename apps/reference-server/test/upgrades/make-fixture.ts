/**
 * Makes the upgrade fixtures of one build (test/upgrades/fixtures/<commit>/): builds the reference
 * server of `commit` in a copy of the repository at that commit, runs it on a fresh SQLite data
 * directory and on a fresh PostgreSQL database, and has it store what a user of that build has:
 * key pairs provisioned (policy `any` and `message-signature`) and issued by its `credentials`
 * command, one of them revoked, and users created, added to a second institution and updated
 * through signed requests. Keeps the SQLite file (vacuumed) with its key file and a pg_dump of
 * the PostgreSQL database, and what they hold in fixture.json. Every key is test-only.
 *
 * A release adds the fixture of its own build, so that every later one is tested opening it:
 *
 *   npm run build
 *   node apps/reference-server/test/upgrades/make-fixture.ts <commit> [work directory]
 *
 * The copy and its build stay in the work directory (default: under the system's temporary
 * directory) for the next run.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { type RunningPostgres, startPostgres } from '@institution-api/test-support/postgres';
import {
  startReferenceServer,
  testCredentialsEncryptionKey,
} from '@institution-api/test-support/reference-server';
import { distinctUserBody, userBodyExamples } from '@institution-api/test-support/user-bodies';
import {
  type Answer,
  dumpPostgres,
  type Engine,
  engines,
  type FixtureCredential,
  type FixtureRecord,
  type FixtureUser,
  fixtureDir,
  postgresDumpFile,
  recordFile,
  sendSigned,
  sqliteFiles,
  testOnlyNote,
} from './fixture.ts';

const users = '/api/v1/external/users';
const repository = fileURLToPath(new URL('../../../../', import.meta.url));
const [commitArgument, workArgument] = process.argv.slice(2);
if (!commitArgument) {
  console.error(
    'usage: node apps/reference-server/test/upgrades/make-fixture.ts <commit> [work dir]',
  );
  process.exit(2);
}
const git = (...args: string[]) =>
  execFileSync('git', args, { cwd: repository, encoding: 'utf8' }).trim();
const commit = git('rev-parse', '--short=7', `${commitArgument}^{commit}`);
const work = resolve(workArgument ?? join(tmpdir(), 'reference-server-fixture-builds'));

/** Runs a command, its output passed through; throws when it fails. */
function run(command: string, args: string[], cwd: string) {
  console.log(`$ ${command} ${args.join(' ')}`);
  execFileSync(command, args, { cwd, stdio: 'inherit' });
}

/** The repository at `commit`, built (the server and what it depends on); its path. */
function buildOf(): string {
  const copy = join(work, commit);
  if (existsSync(join(copy, 'apps/reference-server/dist/main.js'))) return copy;
  rmSync(copy, { recursive: true, force: true });
  mkdirSync(copy, { recursive: true });
  const archive = join(work, `${commit}.tar`);
  git('archive', '--output', archive, commit);
  run('tar', ['-xf', archive, '-C', copy], work);
  rmSync(archive);
  run('npm', ['ci', '--no-audit', '--no-fund'], copy);
  run('npx', ['turbo', 'run', 'build', '--filter=@institution-api/reference-server'], copy);
  return copy;
}

/** The build's `credentials` command, as its README runs it; its standard output. */
function credentialsCommand(copy: string, env: Record<string, string>, args: string[]): string {
  return execFileSync(
    'npm',
    ['run', '--silent', 'credentials', '-w', '@institution-api/reference-server', '--', ...args],
    { cwd: copy, env: { ...process.env, ...env }, encoding: 'utf8' },
  );
}

function expectStatus(what: string, answer: Answer, status: number): Record<string, unknown> {
  if (answer.status !== status || !answer.body) {
    throw new Error(`${what}: ${answer.status}, not ${status}: ${JSON.stringify(answer.body)}`);
  }
  return answer.body;
}

/**
 * Has the build at `copy` store the fixture's key pairs and users on `databaseUrl`, then stops it.
 * `env` is what the server and its command run with beside DATABASE_URL.
 */
async function writeScenario(
  copy: string,
  databaseUrl: string,
  env: Record<string, string>,
): Promise<Pick<FixtureRecord, 'institutionCredentials' | 'credentials' | 'users'>> {
  const provisioned: FixtureCredential[] = [
    {
      institution: 'Fixture Savings',
      publicKey: 'pk_fixture_savings_test_only',
      secretKey: 'sk_fixture_savings_test_only_never_use_it',
      policy: 'any',
      source: 'INSTITUTION_CREDENTIALS',
      revoked: false,
    },
    {
      institution: 'Fixture Trust',
      publicKey: 'pk_fixture_trust_test_only',
      secretKey: 'sk_fixture_trust_test_only_never_use_it',
      policy: 'message-signature',
      source: 'INSTITUTION_CREDENTIALS',
      revoked: false,
    },
  ];
  const institutionCredentials = provisioned.map(
    ({ institution, publicKey, secretKey, policy }) => ({
      institution,
      publicKey,
      secretKey,
      ...(policy === 'message-signature' ? { messageSignature: 'required' as const } : {}),
    }),
  );
  const server = await startReferenceServer({
    main: join(copy, 'apps/reference-server/dist/main.js'),
    databaseUrl,
    credentials: institutionCredentials,
    env,
  });
  try {
    const commandEnv = { ...env, DATABASE_URL: databaseUrl };
    const issue = (...flags: string[]): FixtureCredential => {
      const printed = JSON.parse(
        credentialsCommand(copy, commandEnv, [
          'issue',
          '--institution',
          'Fixture Credit',
          ...flags,
        ]),
      ) as { institution: string; publicKey: string; secretKey: string; signaturePolicy: string };
      return {
        institution: printed.institution,
        publicKey: printed.publicKey,
        secretKey: printed.secretKey,
        policy: printed.signaturePolicy === 'message-signature' ? 'message-signature' : 'any',
        source: 'issued',
        revoked: false,
      };
    };
    const [savings, trust] = provisioned as [FixtureCredential, FixtureCredential];
    const issuedAny = issue();
    const issuedSigned = issue('--require-message-signature');
    const toRevoke = issue();

    const send = (
      credential: FixtureCredential,
      method: 'POST' | 'PUT',
      path: string,
      body: unknown,
    ) => sendSigned(server.url, credential, method, path, body);
    const stored: { id: string; signer: FixtureCredential; body: Record<string, unknown> }[] = [];
    const create = async (signer: FixtureCredential, body: Record<string, unknown>) => {
      const created = expectStatus('a create', await send(signer, 'POST', users, body), 201);
      stored.push({ id: String(created.id), signer, body });
    };
    const [momo, bank, none] = userBodyExamples.map((example) =>
      distinctUserBody({}, example),
    ) as Record<string, unknown>[];
    await create(savings, momo ?? {});
    await create(trust, bank ?? {});
    await create(issuedAny, none ?? {});
    // The first user joins a second institution, through a pair that signs both ways.
    expectStatus('a create of a stored user', await send(issuedSigned, 'POST', users, momo), 200);
    // The second user's details change.
    const second = stored[1];
    if (second) {
      second.body = { ...second.body, firstName: 'Abena', monthlyIncome: 4321.5 };
      expectStatus(
        'an update',
        await send(trust, 'PUT', `${users}/${second.id}`, second.body),
        200,
      );
    }
    // The pair to revoke is used once first, as a pair in service would have been.
    expectStatus('a create by the pair to revoke', await send(toRevoke, 'POST', users, none), 200);
    credentialsCommand(copy, commandEnv, ['revoke', toRevoke.publicKey, '--reason', 'fixture']);
    toRevoke.revoked = true;

    // What the build answers about each user as it stored it: an update, then a create, again.
    const fixtureUsers: FixtureUser[] = [];
    for (const { id, signer, body } of stored) {
      const updated = expectStatus(
        'an update',
        await send(signer, 'PUT', `${users}/${id}`, body),
        200,
      );
      const created = expectStatus('a create', await send(signer, 'POST', users, body), 200);
      fixtureUsers.push({ id, signer: signer.publicKey, body, created, updated });
    }
    return {
      institutionCredentials,
      credentials: [savings, trust, issuedAny, issuedSigned, toRevoke],
      users: fixtureUsers,
    };
  } finally {
    await server.stop();
  }
}

/** Writes the fixture of one engine into `out`. */
async function makeFixture(copy: string, engine: Engine, out: string) {
  let postgres: RunningPostgres | undefined;
  const scratch = mkdtempSync(join(tmpdir(), 'reference-server-fixture-'));
  try {
    let databaseUrl: string;
    let env: Record<string, string>;
    if (engine === 'sqlite') {
      // The embedded database's key file, made before the first start so that it holds the
      // test-only key rather than a random one (the server uses a key file it finds).
      databaseUrl = scratch;
      writeFileSync(join(scratch, sqliteFiles[1] ?? ''), `${testCredentialsEncryptionKey}\n`, {
        mode: 0o600,
      });
      env = { CREDENTIALS_ENCRYPTION_KEY: '' };
    } else {
      postgres = await startPostgres();
      databaseUrl = postgres.url;
      env = { CREDENTIALS_ENCRYPTION_KEY: testCredentialsEncryptionKey };
    }
    const scenario = await writeScenario(copy, databaseUrl, env);

    let migrations: number[];
    if (engine === 'sqlite') {
      const db = new DatabaseSync(join(scratch, sqliteFiles[0] ?? ''));
      db.exec('PRAGMA wal_checkpoint(TRUNCATE); VACUUM; PRAGMA wal_checkpoint(TRUNCATE)');
      migrations = db
        .prepare('SELECT version FROM schema_migrations ORDER BY version')
        .all()
        .map((row) => Number(row.version));
      db.close();
      for (const file of sqliteFiles) copyFileSync(join(scratch, file), join(out, file));
    } else if (postgres) {
      migrations = (await postgres.psql('SELECT version FROM schema_migrations ORDER BY version'))
        .split('\n')
        .map(Number);
      writeFileSync(join(out, postgresDumpFile), await dumpPostgres(postgres.url));
    } else {
      throw new Error('no PostgreSQL');
    }
    const record: FixtureRecord = { note: testOnlyNote, commit, engine, migrations, ...scenario };
    writeFileSync(join(out, recordFile), `${JSON.stringify(record, null, 2)}\n`);
  } finally {
    await postgres?.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

const copy = buildOf();
for (const engine of engines) {
  const out = fixtureDir(commit, engine);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  console.log(`writing ${out}`);
  await makeFixture(copy, engine, out);
}
