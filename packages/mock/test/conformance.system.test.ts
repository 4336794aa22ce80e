/**
 * The mock proven by the conformance suite: `institution-api-conformance run`, as a user runs it,
 * against `institution-api-mock`, with two institutions (the institution-scope checks included)
 * at several seeds, reports no failure.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { ListeningProcess } from '@institution-api/test-support/listening-process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INSTITUTIONS } from './support/institutions.js';
import { startMockProcess } from './support/mock-process.js';

const conformanceBin = fileURLToPath(
  import.meta
    .resolve('@institution-api/conformance/package.json')
    .replace('package.json', 'bin/institution-api-conformance.js'),
);
const SEEDS = [1, 2, 3];
const rows: string[] = [];

let mock: ListeningProcess;
beforeAll(async () => {
  mock = await startMockProcess(INSTITUTIONS);
});
afterAll(async () => {
  await mock?.stop();
  console.log(
    [
      'conformance runs against institution-api-mock:',
      '| seed | checks | requests | failures | exit |',
      '|---:|---:|---:|---:|---:|',
      ...rows,
    ].join('\n'),
  );
});

/** Runs the suite's CLI; its exit code and what it printed. */
async function runSuite(seed: number) {
  const [first, second] = INSTITUTIONS;
  const child = spawn(
    process.execPath,
    [conformanceBin, 'run', '--base-url', mock.url, '--seed', String(seed), '--rate', '0'],
    {
      env: {
        PATH: process.env.PATH,
        INSTITUTION_PUBLIC_KEY: first.publicKey,
        INSTITUTION_SECRET_KEY: first.secretKey,
        INSTITUTION_OTHER_PUBLIC_KEY: second.publicKey,
        INSTITUTION_OTHER_SECRET_KEY: second.secretKey,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    output += text;
  });
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    output += text;
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, output };
}

describe('institution-api-conformance run against institution-api-mock', () => {
  for (const seed of SEEDS) {
    it(`reports no failure at seed ${seed}, with two institutions`, {
      timeout: 120_000,
    }, async () => {
      const { code, output } = await runSuite(seed);
      const table = output.split('\n').filter((line) => /^[a-z_]+ +[✔✖]/.test(line));
      const passed = [...output.matchAll(/✔ (\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
      const failed = /✖ (\d+) check\(s\) failed/.exec(output)?.[1] ?? '0';
      const requests = /(\d+) requests in/.exec(output)?.[1] ?? '?';
      rows.push(
        `| ${seed} | ${table.length} checks, ${passed} passed | ${requests} | ${failed} | ${code} |`,
      );
      expect(output).toMatch(/no check failed/);
      expect(table.some((line) => line.startsWith('stateful_institution_scope'))).toBe(true);
      expect(code, output).toBe(0);
    });
  }
});
