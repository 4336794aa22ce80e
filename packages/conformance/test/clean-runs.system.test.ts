/**
 * No false positives: the reference server passes with zero failures at three seeds, on the
 * embedded SQLite engine and on PostgreSQL 15 (no false positives). The figures (requests and
 * time per run) are printed as a table at the end.
 */

import type { RunningServer } from '@institution-api/test-support/reference-server';
import { describeWith } from '@institution-api/test-support/requirements';
import { openapiDocument } from '@institution-api/types';
import { afterAll, describe, expect, it } from 'vitest';
import { runConformance } from '../src/run/run-conformance.js';
import { CREDENTIALS } from './support/gallery.js';
import { suiteServer } from './support/suite-server.js';

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
  const server = suiteServer();
  it(`passes every check at seeds ${SEEDS.join(', ')}`, { timeout: 300_000 }, () =>
    cleanRuns('SQLite', server),
  );
});

describeWith('postgres', 'the reference server on PostgreSQL 15', () => {
  const server = suiteServer({ postgres: true });
  it(`passes every check at seeds ${SEEDS.join(', ')}`, { timeout: 300_000 }, () =>
    cleanRuns('PostgreSQL', server),
  );
});
