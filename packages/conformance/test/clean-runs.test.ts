/**
 * Issue 18, section 6: the reference server passes with zero failures at three seeds, on the
 * embedded SQLite engine and on PostgreSQL 15 (no false positives). The figures (requests and
 * time per run) are printed as a table at the end.
 */

import {
  postgresUnavailableReason,
  type RunningPostgres,
  startPostgres,
} from '@institution-api/test-support/postgres';
import {
  type RunningServer,
  startReferenceServer,
} from '@institution-api/test-support/reference-server';
import { openapiDocument } from '@institution-api/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runConformance } from '../src/run/run-conformance.js';
import { CREDENTIALS } from './support/gallery.js';

const SEEDS = [1, 2, 3];
const rows: string[] = [];

afterAll(() => {
  console.log(
    [
      'clean runs of the reference server (default budget):',
      '| engine | seed | requests | time | failures |',
      '|---|---:|---:|---:|---:|',
      ...rows,
    ].join('\n'),
  );
});

async function cleanRuns(engine: string, server: () => RunningServer) {
  for (const seed of SEEDS) {
    const report = await runConformance({
      baseUrl: server().url,
      document: openapiDocument,
      seed,
      rate: 0,
      credentials: { main: CREDENTIALS[0], other: CREDENTIALS[1] },
    });
    const failures = report.results.filter((result) => result.failure);
    rows.push(
      `| ${engine} | ${seed} | ${report.requests} | ${(report.durationMs / 1000).toFixed(1)} s | ${failures.length} |`,
    );
    expect(
      failures.map(
        (result) =>
          `${result.check} · ${result.operation}: ${result.failure?.outcome.message} (${result.failure?.label})`,
      ),
      `seed ${seed}`,
    ).toEqual([]);
    expect(report.stopped, 'the default budget is enough for a whole run').toBeUndefined();
  }
}

describe('the reference server on the embedded SQLite engine', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startReferenceServer({ credentials: [...CREDENTIALS] });
  });
  afterAll(() => server?.stop());

  it(`passes every check at seeds ${SEEDS.join(', ')}`, { timeout: 300_000 }, () =>
    cleanRuns('SQLite', () => server),
  );
});

const unavailable = postgresUnavailableReason();
describe.skipIf(unavailable !== undefined && !process.env.CI)(
  'the reference server on PostgreSQL 15',
  () => {
    let postgres: RunningPostgres;
    let server: RunningServer;
    beforeAll(async () => {
      postgres = await startPostgres();
      server = await startReferenceServer({
        credentials: [...CREDENTIALS],
        databaseUrl: postgres.url,
      });
    }, 120_000);
    afterAll(async () => {
      await server?.stop();
      await postgres?.stop();
    });

    it(`passes every check at seeds ${SEEDS.join(', ')}`, { timeout: 300_000 }, () =>
      cleanRuns('PostgreSQL', () => server),
    );
  },
);
