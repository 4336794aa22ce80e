/**
 * The built `institution-api import` as a user runs it, in a process of its own against the real
 * reference server on an SQLite file: interrupted with Ctrl-C (SIGINT), then killed twice with
 * SIGKILL mid-run, then run again to the end. Every row ends in the report exactly once, and the
 * service holds each customer once (counted in its database).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import {
  type RunningServer,
  startReferenceServer,
} from '@institution-api/test-support/reference-server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { csvLine, customersCsv, KEYS, reportOf } from './support.js';

const cli = fileURLToPath(new URL('../../bin/institution-api.js', import.meta.url));
const ROWS = 1200;
const CONCURRENCY = 8;

let dir: string;
let server: RunningServer;
let database: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'institution-api-kill-'));
  database = join(dir, 'service.sqlite');
  server = await startReferenceServer({ credentials: [KEYS], databaseUrl: database });
}, 60_000);
afterAll(async () => {
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** Starts the import; `stderr` collects what it printed there. */
function start(path: string): {
  child: ChildProcess;
  exit: Promise<number | null>;
  stderr: () => string;
} {
  const child = spawn(
    process.execPath,
    [cli, 'import', path, '--concurrency', String(CONCURRENCY)],
    {
      env: {
        ...process.env,
        INSTITUTION_PUBLIC_KEY: KEYS.publicKey,
        INSTITUTION_SECRET_KEY: KEYS.secretKey,
        INSTITUTION_API_URL: server.url,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exit, stderr: () => stderr };
}

/** Waits until the journal records at least `rows` rows, then sends `signal`. */
async function signalAfter(
  journal: string,
  rows: number,
  run: ReturnType<typeof start>,
  signal: NodeJS.Signals,
) {
  for (;;) {
    const text = await readFile(journal, 'utf8').catch(() => '');
    if (text.split('\n').length - 2 >= rows) break;
    if (run.child.exitCode !== null) throw new Error(`the import ended first:\n${run.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  run.child.kill(signal);
  return run.exit;
}

it('SIGINT, then SIGKILL twice, then the same command again: every row once, every customer once', async () => {
  const path = join(dir, 'customers.csv');
  await writeFile(path, customersCsv(11, ROWS));
  const journal = `${path}.journal`;

  const interrupted = start(path);
  expect(await signalAfter(journal, 150, interrupted, 'SIGINT')).toBe(130);
  expect(interrupted.stderr()).toContain(
    `Resume with: institution-api import ${path} --concurrency ${CONCURRENCY}`,
  );

  expect(await signalAfter(journal, 450, start(path), 'SIGKILL')).toBeNull();
  expect(await signalAfter(journal, 800, start(path), 'SIGKILL')).toBeNull();

  const last = start(path);
  const code = await last.exit;
  expect(code, last.stderr()).toBe(0);

  const report = await reportOf(`${path}.report.ndjson`);
  expect(report).toHaveLength(ROWS);
  expect(report.map((r) => r.line).sort((a, b) => a - b)).toEqual(
    Array.from({ length: ROWS }, (_, i) => csvLine(i)),
  );
  expect(report.every((r) => r.outcome === 'created' || r.outcome === 'existing')).toBe(true);
  // one user per customer: distinct ids, one per card number
  expect(new Set(report.map((r) => r.userId)).size).toBe(ROWS);
  // rows sent again are only those in flight at a kill, which the service recognized
  const existing = report.filter((r) => r.outcome === 'existing').length;
  expect(existing).toBeLessThanOrEqual(2 * CONCURRENCY);

  await server.stop();
  const db = new DatabaseSync(database, { readOnly: true });
  try {
    const { count } = db.prepare('SELECT count(*) AS count FROM users').get() as { count: number };
    expect(count).toBe(ROWS); // the card number is unique there: one user per customer
  } finally {
    db.close();
  }
}, 120_000);
