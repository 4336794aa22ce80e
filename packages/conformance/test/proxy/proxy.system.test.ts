/**
 * The validation proxy: transparent (a signed request goes through byte for byte and is accepted),
 * and it reports violations of either side of the contract, in-process and as the CLI (listening
 * line, one line per violation, NDJSON, summary and exit code on SIGTERM).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { signedRequest } from '@institution-api/test-support/signed-request';
import { waitFor } from '@institution-api/test-support/wait-for';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Outcome } from '../../src/checks/catalog.js';
import { startProxy } from '../../src/proxy/proxy-server.js';
import { contract, example } from '../support/exchanges.js';
import { startFaultyServer } from '../support/faulty-server.js';
import { CREDENTIALS } from '../support/gallery.js';
import { suiteServer } from '../support/suite-server.js';

const cli = fileURLToPath(new URL('../../bin/institution-api-conformance.js', import.meta.url));
const server = suiteServer();
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'conformance-proxy-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

function signedCreate(url: string, body: string) {
  const request = signedRequest('POST', `${url}/api/v1/external/users`, CREDENTIALS[0], {
    body,
    messageSignature: false,
  });
  return fetch(request.url, request);
}

const person = (card: string) => ({
  ...example('UserWithoutAccount'),
  email: `proxy.${card}@example.com`,
  ghanaCardNumber: `GHA-${card}-3`,
});

/** Resolves once the proxy has told of the exchange's outcomes (all at once, as it checks it). */
const checked = (outcomes: Outcome[]) =>
  waitFor(() => outcomes.length > 0, {
    timeoutMs: 10_000,
    message: 'the outcomes of the exchange',
  });

describe('startProxy', () => {
  it('forwards a signed request byte for byte (the indented spelling verifies) and sees no violation', async () => {
    const outcomes: Outcome[] = [];
    const proxy = await startProxy({
      contract,
      target: server().url,
      host: '127.0.0.1',
      port: 0,
      onOutcome: (outcome) => outcomes.push(outcome),
    });
    try {
      const response = await signedCreate(proxy.url, JSON.stringify(person('700300400'), null, 2));
      expect(response.status).toBe(201);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      await response.arrayBuffer();
      await checked(outcomes);
      expect(outcomes.filter((outcome) => !outcome.ok)).toEqual([]);
      expect(outcomes.map((outcome) => outcome.check)).toEqual(
        expect.arrayContaining(['request_conformance', 'response_schema_conformance']),
      );
    } finally {
      await proxy.close();
    }
  });

  it("reports the client's invalid request and the service's wrong answer, and changes neither", async () => {
    const faulty = await startFaultyServer(server().url, async (request, forward) => {
      const answer = await forward(request);
      return answer.status === 400
        ? { ...answer, headers: { ...answer.headers, 'content-type': 'text/plain' } }
        : answer;
    });
    const outcomes: Outcome[] = [];
    const proxy = await startProxy({
      contract,
      target: faulty.url,
      host: '127.0.0.1',
      port: 0,
      onOutcome: (outcome) => outcomes.push(outcome),
    });
    try {
      const response = await signedCreate(
        proxy.url,
        JSON.stringify({ ...person('700300401'), nickname: 'x' }),
      );
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toBe('text/plain');
      await response.arrayBuffer();
      await checked(outcomes);
      const failed = outcomes.filter((outcome) => !outcome.ok);
      expect(failed.map((outcome) => outcome.check).sort()).toEqual([
        'content_type_conformance',
        'request_conformance',
      ]);
      expect(failed.find((outcome) => outcome.check === 'request_conformance')?.message).toMatch(
        /nickname/,
      );
    } finally {
      await proxy.close();
      await faulty.close();
    }
  });
});

describe('institution-api-conformance proxy', () => {
  async function started(
    args: string[],
  ): Promise<{ child: ChildProcess; url: string; output: () => string }> {
    const child = spawn(process.execPath, [cli, 'proxy', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no listening line:\n${output}`)), 20_000);
      child.stdout?.on('data', () => {
        const found = /listening on (http:\/\/\S+)/.exec(output)?.[1];
        if (found) {
          clearTimeout(timer);
          resolve(found);
        }
      });
      child.once('exit', () => reject(new Error(`exited:\n${output}`)));
    });
    return { child, url, output: () => output };
  }
  const exited = (child: ChildProcess) =>
    new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  it('prints each violation on one line, appends it to the report, and exits 1 after a summary on SIGTERM', {
    timeout: 60_000,
  }, async () => {
    const faulty = await startFaultyServer(server().url, async (request, forward) => ({
      ...(await forward(request)),
      status: 299,
    }));
    const report = join(dir, 'violations.ndjson');
    const { child, url, output } = await started([
      '--target',
      faulty.url,
      '--port',
      '0',
      '--report',
      report,
    ]);
    try {
      const response = await signedCreate(url, JSON.stringify(person('700300402')));
      expect(response.status).toBe(299);
      await response.arrayBuffer();
      const code = exited(child);
      await waitFor(() => output().includes('✖ status_code_conformance'), {
        timeoutMs: 10_000,
        message: 'the violation printed',
      });
      child.kill('SIGTERM');
      expect(await code).toBe(1);
      expect(output()).toMatch(
        /^✖ status_code_conformance · createUser · POST \/api\/v1\/external\/users → 299: 299 is not a status the spec documents for createUser$/m,
      );
      expect(output()).toMatch(/1 exchange\(s\) checked, 1 violation\(s\)/);
      const lines = (await readFile(report, 'utf8'))
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(lines).toEqual([
        expect.objectContaining({
          check: 'status_code_conformance',
          operation: 'createUser',
          ok: false,
          status: 299,
        }),
      ]);
    } finally {
      child.kill('SIGKILL');
      await faulty.close();
    }
  });

  it('exits 0 on SIGINT when it saw no violation', { timeout: 60_000 }, async () => {
    const { child, url, output } = await started(['--target', server().url, '--port', '0']);
    try {
      const response = await signedCreate(url, JSON.stringify(person('700300403')));
      expect(response.status).toBe(201);
      await response.arrayBuffer();
      const code = exited(child);
      // Nothing to wait for: the proxy checks an exchange in the tick that ends its answer
      // (src/proxy/proxy-server.ts), so once the answer is read the exchange was counted.
      child.kill('SIGINT');
      expect(await code).toBe(0);
      expect(output()).toMatch(/1 exchange\(s\) checked, 0 violation\(s\)/);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
