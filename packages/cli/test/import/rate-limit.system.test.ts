/**
 * The import against the real reference server with a rate limit (RATE_LIMIT_PER_MINUTE): past
 * the limit the service answers 429 with the seconds until its window ends in Retry-After; the
 * run waits them out and finishes every row, none failed. The server's window is 5 s instead of
 * a minute (RATE_LIMIT_WINDOW_SECONDS, for tests): time enough for the first 21 creates to fall
 * in one window on a loaded machine, and a few seconds of waiting instead of a minute.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type RunningServer,
  startReferenceServer,
} from '@institution-api/test-support/reference-server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { customersCsv, importCli, KEYS, recordingFetch, reportOf } from './support.js';

const LIMIT = 20;
const ROWS = 30;
const WINDOW_SECONDS = 5;

let dir: string;
let server: RunningServer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'institution-api-rate-'));
  server = await startReferenceServer({
    credentials: [KEYS],
    env: {
      RATE_LIMIT_PER_MINUTE: String(LIMIT),
      RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS),
    },
  });
}, 60_000);
afterAll(async () => {
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

it('waits out Retry-After past the limit and creates every row; none failed', async () => {
  const path = join(dir, 'customers.csv');
  await writeFile(path, customersCsv(12, ROWS));
  const statuses: number[] = [];
  const { fetch } = recordingFetch(async (input, init) => {
    const response = await globalThis.fetch(input, init);
    statuses.push(response.status);
    return response;
  });
  const { code, stdout } = await importCli([path], { url: server.url, fetch });
  expect(code).toBe(0);
  expect(statuses.filter((status) => status === 429).length).toBeGreaterThan(0);
  expect(statuses.filter((status) => status === 201)).toHaveLength(ROWS);
  expect(stdout).toMatch(/slowed down (once|\d+ times) by 429\/503/);
  const report = await reportOf(`${path}.report.ndjson`);
  expect(report).toHaveLength(ROWS);
  expect(report.every((r) => r.outcome === 'created')).toBe(true);
}, 60_000);
