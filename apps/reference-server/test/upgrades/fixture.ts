/**
 * Databases written by released builds of the reference server, kept to open with the current one
 * (spec Assumptions, "Key lifecycle", "Secrets at rest"): what make-fixture.ts records of each, and
 * what both it and upgrade.test.ts do with them.
 *
 * Every key here (the key file, `testCredentialsEncryptionKey`, the key pairs) is a throwaway of
 * these fixtures: test-only, never to be used anywhere else.
 */
import { execFile as execFileCallback } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { postgresBinDir } from '@institution-api/test-support/postgres';
import { signedRequest } from '@institution-api/test-support/signed-request';

const execFile = promisify(execFileCallback);

/** `test/upgrades/fixtures/`: one folder per build, named by its commit. */
export const fixturesDir = fileURLToPath(new URL('./fixtures/', import.meta.url));

/** The engines a fixture has a database of, each in a folder of that name. */
export const engines = ['sqlite', 'postgres'] as const;
export type Engine = (typeof engines)[number];

/** The SQLite fixture's files: the database and its key file, as the server names them. */
export const sqliteFiles = ['reference-server.sqlite', 'reference-server.sqlite-credentials.key'];
/** The PostgreSQL fixture: a plain-SQL `pg_dump --no-owner --no-privileges` of the database. */
export const postgresDumpFile = 'dump.sql';
/** What the fixture's database holds, per engine folder. */
export const recordFile = 'fixture.json';

/** A key pair the build stored, with its secret (test-only). */
export interface FixtureCredential {
  institution: string;
  publicKey: string;
  secretKey: string;
  /** `message-signature`: every request also carries an RFC 9421 message signature. */
  policy: 'any' | 'message-signature';
  /** How the build got it: provisioned at its start, or issued by its `credentials issue`. */
  source: 'INSTITUTION_CREDENTIALS' | 'issued';
  revoked: boolean;
}

/** A user the build stored, and what the build last answered about it. */
export interface FixtureUser {
  id: string;
  /** The public key of a live pair of an institution the user belongs to. */
  signer: string;
  /** The body the user's details were last written with. */
  body: Record<string, unknown>;
  /** The build's `200` to a create of this user again (UserCreated). */
  created: Record<string, unknown>;
  /** The build's `200` to an update of this user with `body` (UserUpdated). */
  updated: Record<string, unknown>;
}

/** `fixture.json`: the build and what its database holds. */
export interface FixtureRecord {
  /** That every key in the fixture is a test-only throwaway. */
  note: typeof testOnlyNote;
  /** The commit whose build wrote the database. */
  commit: string;
  engine: Engine;
  /** The versions in `schema_migrations` as the build left it. */
  migrations: number[];
  /** INSTITUTION_CREDENTIALS the build ran with (an operator keeps it across the upgrade). */
  institutionCredentials: {
    institution: string;
    publicKey: string;
    secretKey: string;
    messageSignature?: 'required';
  }[];
  credentials: FixtureCredential[];
  users: FixtureUser[];
}

/** The first line of every fixture.json. */
export const testOnlyNote =
  'Every key of this fixture is a test-only throwaway, written by make-fixture.ts: never use one anywhere else.';

/** The commits that have a fixture, in the order their folders sort. */
export function fixtureCommits(): string[] {
  return readdirSync(fixturesDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/** The folder of one engine's fixture of `commit`. */
export const fixtureDir = (commit: string, engine: Engine) => join(fixturesDir, commit, engine);

/** An answer: its status and its JSON body (undefined when empty). */
export interface Answer {
  status: number;
  body: Record<string, unknown> | undefined;
}

/**
 * Sends `body` as JSON signed by `credential` as a client of its policy signs: the Authorization
 * header, and for `message-signature` pairs an RFC 9421 message signature too.
 */
export async function sendSigned(
  baseUrl: string,
  credential: Pick<FixtureCredential, 'publicKey' | 'secretKey' | 'policy'>,
  method: 'POST' | 'PUT',
  path: string,
  body: unknown,
): Promise<Answer> {
  const request = signedRequest(method, `${baseUrl}${path}`, credential, {
    body,
    messageSignature: credential.policy === 'message-signature' ? {} : false,
  });
  const response = await fetch(request.url, request);
  const answer = await response.text();
  return { status: response.status, body: answer ? JSON.parse(answer) : undefined };
}

/** `pg_dump` of the database at `url` as plain SQL, without owners or privileges. */
export async function dumpPostgres(url: string): Promise<string> {
  const { stdout } = await execFile(
    join(postgresBinDir, 'pg_dump'),
    ['--no-owner', '--no-privileges', '-d', url],
    { maxBuffer: 64 << 20 },
  );
  return stdout;
}
