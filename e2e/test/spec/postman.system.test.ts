/**
 * The Postman collection as delivered: built from the bundle by `npm run build`
 * (apps/docs/scripts/lib/postman-collection.mjs), served by the reference server beside its docs, and run by
 * Newman exactly as the client README's recipe says, with the collection's URL and the
 * institution's keys (and here a base URL, the server being on a free port): the collection
 * signs its own requests, registers a fresh customer, carries the created id into the update,
 * and checks every answer against the spec. Twice in a row against the same server, every
 * assertion passes; against a server whose update answers in the create's shape, the update's
 * check against the spec fails and Newman exits non-zero. Newman's JSON reports stay in reports/.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type Credential,
  type RunningServer,
  startReferenceServer,
} from '@institution-api/test-support/reference-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportedFile, repository, bundledSpec as spec } from '../workspaces.js';
import { startUpdateAsCreateProxy } from './broken-server.js';

const newman = join(repository, 'node_modules', '.bin', 'newman');
const reports = fileURLToPath(new URL('../../reports', import.meta.url));
const collectionFile = exportedFile(
  '@institution-api/docs/institution-api.postman_collection.json',
);
const collectionPath = '/institution-api.postman_collection.json';

const institution: Credential = {
  institution: 'Postman',
  publicKey: 'postman-institution',
  secretKey: 'postman-institution-secret-0123456789',
  // The collection signs both ways: this key pair refuses a request whose message signature is
  // missing or does not verify.
  messageSignature: 'required',
};

/** What Newman's `json` reporter writes, as far as these tests read it. */
interface NewmanReport {
  run: {
    stats: { assertions: { total: number; failed: number }; requests: { total: number } };
    executions: {
      item: { name: string };
      response?: { code: number };
      assertions?: { assertion: string; error?: { message: string } }[];
    }[];
    failures: { source: { name: string }; error: { test?: string; message: string } }[];
  };
}

/**
 * `newman run <the collection's URL on the server>` with the keys and a base URL, as the client
 * README's recipe has it; resolves with Newman's exit code, its output and its JSON report.
 */
function runNewman(collectionUrl: string, baseUrl: string, name: string) {
  mkdirSync(reports, { recursive: true });
  const reportPath = join(reports, `${name}.json`);
  const args = [
    'run',
    collectionUrl,
    '--env-var',
    `baseUrl=${baseUrl}`,
    '--env-var',
    `publicKey=${institution.publicKey}`,
    '--env-var',
    `secretKey=${institution.secretKey}`,
    '--reporters',
    'cli,json',
    '--reporter-json-export',
    reportPath,
    '--color',
    'off',
  ];
  return new Promise<{ code: number; output: string; report: NewmanReport }>((resolve, reject) => {
    execFile(newman, args, { cwd: repository }, (error, stdout, stderr) => {
      const status = (error as { code?: unknown } | null)?.code;
      const output = stdout + stderr;
      try {
        const report = JSON.parse(readFileSync(reportPath, 'utf8')) as NewmanReport;
        resolve({ code: typeof status === 'number' ? status : 0, output, report });
      } catch {
        reject(new Error(`newman wrote no report (exit ${status}):\n${output}`));
      }
    });
  });
}

let server: RunningServer;
let broken: { url: string; close(): Promise<void> } | undefined;
let brokenRun: ReturnType<typeof runNewman>;

beforeAll(async () => {
  server = await startReferenceServer({ credentials: [institution] });
  broken = await startUpdateAsCreateProxy(server.url);
  // The run against the broken server shares nothing with the two in a row (its own fresh
  // customer): it runs beside them, and its test awaits it.
  brokenRun = runNewman(`${server.url}${collectionPath}`, broken.url, 'newman-broken-server');
  brokenRun.catch(() => undefined);
}, 60_000);
afterAll(async () => {
  await broken?.close();
  await server?.stop();
});

/** The journey's requests, their statuses, and the assertions each ran, from a report. */
function journey(report: NewmanReport) {
  return report.run.executions.map((execution) => ({
    name: execution.item.name,
    status: execution.response?.code,
    assertions: execution.assertions?.length ?? 0,
  }));
}

describe('the Postman collection', () => {
  it('is served by the reference server as the build made it, from the spec', async () => {
    const answer = await fetch(`${server.url}${collectionPath}`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    const served = await answer.text();
    expect(served).toBe(readFileSync(collectionFile, 'utf8'));
    const collection = JSON.parse(served);
    const variables = Object.fromEntries(
      collection.variable.map((variable: { key: string; value: string }) => [
        variable.key,
        variable.value,
      ]),
    );
    // The spec's first server, the local sandbox, is its default base URL.
    expect(variables.baseUrl).toBe((spec as { servers?: { url: string }[] }).servers?.[0]?.url);
    expect(variables).toMatchObject({ publicKey: '', secretKey: '' });
    expect(collection.info.version).toBe((spec.info as { version?: string }).version);
  });

  const runs: NewmanReport[] = [];
  it.each([
    ['first', 1],
    ['second', 2],
  ])(
    'run by Newman a %s time against the same server: every assertion passes',
    async (_, n) => {
      const run = await runNewman(`${server.url}${collectionPath}`, server.url, `newman-run-${n}`);
      runs.push(run.report);
      const { assertions } = run.report.run.stats;
      console.log(`newman run ${n}: ${assertions.total} assertions, ${assertions.failed} failed`);
      expect(run.report.run.failures.map(({ error }) => error.message)).toEqual([]);
      expect(run.code, run.output).toBe(0);
      // A fresh customer each run: the first create answers 201 both times.
      expect(journey(run.report)).toEqual([
        { name: 'Create a customer', status: 201, assertions: 5 },
        { name: 'Create the same customer again', status: 200, assertions: 5 },
        { name: 'Update that customer', status: 200, assertions: 6 },
      ]);
      expect(assertions).toMatchObject({ total: 16, failed: 0 });
      // The collection signed every request itself: the server checks each signature.
      expect(run.output).not.toContain(institution.secretKey);
    },
    60_000,
  );

  it('fails against a server whose update answers in the create’s shape', async () => {
    const run = await brokenRun;
    const { assertions } = run.report.run.stats;
    console.log(
      `newman against the broken server: ${assertions.total} assertions, ${assertions.failed} failed`,
    );
    expect(run.code).not.toBe(0);
    expect(run.report.run.failures.map(({ source, error }) => [source.name, error.test])).toEqual([
      ['Update that customer', "updateUser 200: the body matches the spec's schema"],
    ]);
    expect(run.report.run.failures[0]?.error.message).toMatch(/monthlyIncome/);
    expect(assertions).toMatchObject({ total: 16, failed: 1 });
  }, 60_000);
});
