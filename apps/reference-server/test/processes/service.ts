/**
 * One service of several reference server processes on one PostgreSQL, as an operator runs it
 * (spec Assumptions, "Several processes"), for the tests of this folder, and signed requests to it.
 */
import { randomBytes } from 'node:crypto';
import { type RunningPostgres, startPostgres } from '@institution-api/test-support/postgres';
import { startPostgresDatabase } from '@institution-api/test-support/postgres-database';
import {
  type Credential,
  type RunningServer,
  startReferenceServer,
} from '@institution-api/test-support/reference-server';
import { describeWith } from '@institution-api/test-support/requirements';
import { signedRequest } from '@institution-api/test-support/signed-request';
import type { SuiteFactory, TestOptions } from 'vitest';

/** `describe` for a suite of several processes: it needs PostgreSQL (test-support's rule). */
export function withPostgres(name: string, options: TestOptions, factory: SuiteFactory): void {
  describeWith('postgres', name, options, factory);
}

/** A fresh institution's key pair, unique to this run. */
export function newCredential(institution: string): Credential {
  return {
    institution,
    publicKey: `pk_${institution.toLowerCase().replaceAll(/\W/g, '_')}_${randomBytes(4).toString('hex')}`,
    secretKey: randomBytes(24).toString('base64url'),
  };
}

/** Several server processes on one PostgreSQL. */
export interface Service {
  postgres: RunningPostgres;
  servers: RunningServer[];
  /** Stops every server, then PostgreSQL. */
  stop(): Promise<void>;
}

/**
 * Starts `count` servers on one fresh database, together (they migrate it once, under an advisory
 * lock), each provisioned with `credentials`; `env(index)` adds a server's variables. The database
 * is the file's own in the run's PostgreSQL, or with `ownPostgres` (a test that stops PostgreSQL)
 * a PostgreSQL of the service's own.
 */
export async function startService(
  count: number,
  credentials: Credential[],
  env: (index: number) => Record<string, string> = () => ({}),
  { ownPostgres = false } = {},
): Promise<Service> {
  const postgres = ownPostgres ? await startPostgres() : await startPostgresDatabase();
  const started = await Promise.allSettled(
    Array.from({ length: count }, (_, index) =>
      startReferenceServer({ credentials, databaseUrl: postgres.url, env: env(index) }),
    ),
  );
  const servers = started.flatMap((result) =>
    result.status === 'fulfilled' ? [result.value] : [],
  );
  const stop = async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await postgres.stop();
  };
  const failed = started.find((result) => result.status === 'rejected');
  if (failed) {
    await stop();
    throw failed.reason;
  }
  return { postgres, servers, stop };
}

/** An answer as these tests look at it, with when it was sent and received (`Date.now()`). */
export interface SignedAnswer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
  sentAt: number;
  receivedAt: number;
}

/** Sends `body` signed by `credential`. */
export async function sendSigned(
  baseUrl: string,
  credential: Credential,
  method: 'POST' | 'PUT',
  path: string,
  body: unknown,
): Promise<SignedAnswer> {
  const request = signedRequest(method, `${baseUrl}${path}`, credential, {
    body,
    messageSignature: false,
  });
  const sentAt = Date.now();
  const response = await fetch(request.url, request);
  const answer = (await response.json()) as Record<string, unknown>;
  return {
    status: response.status,
    headers: response.headers,
    body: answer,
    sentAt,
    receivedAt: Date.now(),
  };
}

let sequence = 0;

/** A valid create body of a new person each call (own card number and email). */
export function newPerson(overrides: Record<string, unknown> = {}) {
  sequence += 1;
  const serial = String(100_000_000 + ((process.pid * 1000 + sequence) % 900_000_000)).slice(-9);
  return {
    email: `esi.${process.pid}.${sequence}@example.com`,
    firstName: 'Esi',
    lastName: 'Mensah',
    mobileNumber: '0241234567',
    ghanaCardNumber: `GHA-${serial}-${sequence % 10}`,
    monthlyIncome: 1200,
    ...overrides,
  };
}

/** Counts by status, e.g. `{ "201": 30, "429": 60 }`. */
export function countStatuses(answers: { status: number }[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { status } of answers) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}
