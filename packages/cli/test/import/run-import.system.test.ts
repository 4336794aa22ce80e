/**
 * `institution-api import` against the real reference server (memory://), with a key that
 * requires message signatures (so every row is signed both ways): every outcome, the
 * report, the dry run, the exit codes, the journal refused when it belongs elsewhere, Ctrl-C and
 * resumption, and the run slowed down, not failed, by 503 and 429 answers.
 */
import { copyFile, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type RunningServer,
  startReferenceServer,
} from '@institution-api/test-support/reference-server';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMPORT_USAGE } from '../../src/import/options.js';
import { main, USAGE } from '../../src/main.js';
import {
  csvLine,
  customer,
  customerRow,
  customersCsv,
  HEADER,
  importCli,
  KEYS,
  recordingFetch,
  reportOf,
  requestOf,
} from './support.js';

const template = fileURLToPath(new URL('../../templates/customers.csv', import.meta.url));

let server: RunningServer;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'institution-api-import-'));
  // A key that requires message signatures: every row is accepted only if the import signs it
  // both ways, each attempt anew (the seed's header alone is refused).
  const credentials = [{ ...KEYS, messageSignature: 'required' as const }];
  server = await startReferenceServer({ credentials });
}, 60_000);
afterAll(async () => {
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

let files = 0;
/** Writes `text` to a fresh file of this test run and returns its path. */
async function file(text: string, extension = 'csv'): Promise<string> {
  const path = join(dir, `customers-${files++}.${extension}`);
  await writeFile(path, text);
  return path;
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

describe('import: outcomes and report', () => {
  it('imports the template cleanly, then finds every customer existing in a second import', async () => {
    const path = join(dir, 'template.csv');
    await copyFile(template, path);
    // The template is the spec's request examples, one a row: the first line of each record.
    const records = parse(await readFile(template, 'utf8'), {
      info: true,
      raw: true,
      from_line: 2,
    }) as unknown as { raw: string; info: { lines: number } }[];
    const lines = records.map(({ raw, info }) => info.lines - (raw.match(/\n/g)?.length ?? 0) + 1);
    expect(lines.length).toBeGreaterThanOrEqual(3);
    const first = await importCli([path], { url: server.url });
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    // stdout carries the summary alone
    expect(first.stdout).toMatch(
      new RegExp(
        `^institution-api import .*template\\.csv: ${lines.length} rows\n {2}created {3}${lines.length}\n {2}existing {2}0\n`,
      ),
    );
    const created = await reportOf(`${path}.report.ndjson`);
    expect(created.map((r) => [r.line, r.outcome, r.status])).toEqual(
      lines.map((line) => [line, 'created', 201]),
    );
    for (const row of created) expect(row.userId).toMatch(/^[0-9a-f-]{36}$/);

    await rm(`${path}.journal`);
    const second = await importCli([path], { url: server.url });
    expect(second.code).toBe(0);
    const existing = await reportOf(`${path}.report.ndjson`);
    expect(existing.map((r) => [r.line, r.outcome, r.status, r.userId])).toEqual(
      created.map((r) => [r.line, 'existing', 200, r.userId]),
    );
  });

  it('gives each row its outcome: created, existing, conflict, invalid (never sent), failed; exits 1', async () => {
    const taken = customer(2, 0);
    const failing = customer(2, 4);
    const rows = [
      HEADER,
      customerRow(2, 0), // line 2: created
      customerRow(2, 0), // line 4: the same customer again: existing, the same user
      customerRow(2, 2).replace(customer(2, 2).email, taken.email), // line 6: another's email: 409
      customerRow(2, 3).replace(',MTN,', ',,'), // line 8: MOMO without network: invalid, not sent
      customerRow(2, 4), // line 10: no answer, whatever the retries: failed
      'x@example.com,Ama', // line 12: a short row: invalid
    ];
    const path = await file(`${rows.join('\n')}\n`);
    const { fetch, bodies } = recordingFetch((input, init) =>
      bodies.at(-1)?.includes(failing.email)
        ? Promise.reject(new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } }))
        : globalThis.fetch(input, init),
    );
    const { code, stdout } = await importCli([path, '--concurrency', '1'], {
      url: server.url,
      fetch,
    });
    expect(code).toBe(1);
    const report = await reportOf(`${path}.report.ndjson`);
    const byLine = new Map(report.map((r) => [r.line, r]));
    expect(report).toHaveLength(6);
    expect(byLine.get(2)).toMatchObject({ outcome: 'created', status: 201 });
    expect(byLine.get(4)).toMatchObject({
      outcome: 'existing',
      status: 200,
      userId: byLine.get(2)?.userId,
    });
    expect(byLine.get(6)).toMatchObject({
      outcome: 'conflict',
      status: 409,
      problem: { status: 409, type: expect.stringMatching(/conflict/) },
    });
    expect(byLine.get(8)).toEqual({
      line: 8,
      outcome: 'invalid',
      problem: expect.objectContaining({
        errors: [
          { path: '/body/network', message: 'network is required when accountType is MOMO' },
        ],
      }),
    });
    expect(byLine.get(10)).toMatchObject({ outcome: 'failed', problem: { title: 'network' } });
    expect(byLine.get(10)?.status).toBeUndefined();
    expect(byLine.get(12)).toMatchObject({
      outcome: 'invalid',
      problem: { errors: [{ path: '/body', message: 'the row has 2 fields; the header has 11' }] },
    });
    // the invalid rows never left the process; the failed one was tried 3 times (the client's policy)
    expect(bodies.some((body) => body.includes(customer(2, 3).email))).toBe(false);
    expect(bodies.filter((body) => body.includes(failing.email))).toHaveLength(3);
    expect(stdout).toMatch(
      /created {3}1\n {2}existing {2}1\n {2}conflict {2}1\n {2}invalid {3}2\n {2}failed {4}1\n/,
    );
  }, 30_000);

  it('reads NDJSON, reporting a line that is not JSON and a body the service refuses (400)', async () => {
    const lines = [
      JSON.stringify(customer(3, 0)),
      '',
      '{"email": ',
      // a lone surrogate: the schema cannot see it, the service refuses it
      JSON.stringify({ ...customer(3, 1), firstName: 'A' }).replace('"A"', '"\\ud800"'),
    ];
    const path = await file(`${lines.join('\n')}\n`, 'ndjson');
    const { code } = await importCli([path], { url: server.url });
    expect(code).toBe(1);
    const report = await reportOf(`${path}.report.ndjson`);
    expect(report.map((r) => [r.line, r.outcome, r.status])).toEqual(
      expect.arrayContaining([
        [1, 'created', 201],
        [3, 'invalid', undefined],
        [4, 'invalid', 400],
      ]),
    );
    expect(report).toHaveLength(3);
  });

  it('--dry-run checks every row and sends nothing', async () => {
    const path = await file(
      [HEADER, customerRow(4, 0), customerRow(4, 1).replace('@example.com', '')].join('\n'),
    );
    const { fetch, bodies } = recordingFetch();
    const { code, stdout } = await importCli([path, '--dry-run'], { env: {}, fetch });
    expect(code).toBe(1);
    expect(bodies).toEqual([]);
    expect(await exists(`${path}.journal`)).toBe(false);
    expect(stdout).toMatch(/2 rows \(dry run, nothing sent\)\n {2}valid {5}1\n {2}invalid {3}1\n/);
    expect(await reportOf(`${path}.report.ndjson`)).toEqual([
      { line: 2, outcome: 'valid' },
      {
        line: 4,
        outcome: 'invalid',
        problem: expect.objectContaining({
          errors: [{ path: '/body/email', message: 'email must be an e-mail address' }],
        }),
      },
    ]);
    const clean = await file([HEADER, customerRow(4, 0)].join('\n'));
    expect((await importCli([clean, '--dry-run'], { env: {} })).code).toBe(0);
  });

  it('--report - writes the report on stdout and the summary on stderr', async () => {
    const path = await file(customersCsv(5, 2));
    const { code, stdout, stderr } = await importCli([path, '--report', '-'], { url: server.url });
    expect(code).toBe(0);
    expect(
      stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).line),
    ).toEqual([2, 4]);
    expect(stderr).toMatch(/^institution-api import .*: 2 rows\n/);
  });
});

describe('import: exit code 2 before the first row', () => {
  it('an unknown column stops the run before anything is sent, naming it', async () => {
    const path = await file(`${HEADER},nickname\n${customerRow(6, 0)},Ami\n`);
    const { fetch, bodies } = recordingFetch();
    const { code, stderr } = await importCli([path], { url: server.url, fetch });
    expect(code).toBe(2);
    expect(stderr).toBe(
      `institution-api: ${path}, line 1: unknown column "nickname": UserInput has no field "nickname" (columns are the request's field names, with a dot for nesting, e.g. kyc.occupation); nothing was sent\n`,
    );
    expect(bodies).toEqual([]);
  });

  it('a service that cannot be reached: one line naming it, no row recorded', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    const path = await file(customersCsv(7, 3));
    const { code, stdout, stderr } = await importCli([path], { url });
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(
      new RegExp(
        `^institution-api: cannot reach ${url}/api/v1/external/users: connection refused \\(ECONNREFUSED\\)\\.\\n`,
      ),
    );
    expect(await reportOf(`${path}.report.ndjson`)).toEqual([]);
  }, 30_000);

  it('keys the service refuses (401)', async () => {
    const path = await file(customersCsv(8, 3));
    const { code, stderr } = await importCli([path], {
      env: {
        INSTITUTION_PUBLIC_KEY: KEYS.publicKey,
        INSTITUTION_SECRET_KEY: 'wrong',
        INSTITUTION_API_URL: server.url,
      },
    });
    expect(code).toBe(2);
    expect(stderr).toMatch(/refused the signature \(401\): check INSTITUTION_PUBLIC_KEY/);
  });

  it('--no-message-signatures: a key that requires them refuses the seed header alone (401)', async () => {
    const path = await file(customersCsv(21, 3));
    const { code, stderr } = await importCli([path, '--no-message-signatures'], {
      url: server.url,
    });
    expect(code).toBe(2);
    expect(stderr).toMatch(/refused the signature \(401\)/);
  });

  it.each([
    [['x.txt'], /cannot tell the format of x\.txt from its extension/],
    [['a.csv', 'b.csv'], /import expects one file/],
    [['a.csv', '--concurrency', '0'], /--concurrency must be a whole number from 1 to 256/],
    [['a.csv', '--report', 'a.csv'], /three different files/],
    [['/nonexistent/a.csv'], /cannot read \/nonexistent\/a\.csv \(ENOENT\); nothing was sent/],
  ])('usage and file errors: %j', async (args, message) => {
    const { code, stderr } = await importCli(args, { url: server.url });
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
  });

  it('refuses a journal made for another file, and a tampered one, with one line', async () => {
    const path = await file(customersCsv(9, 2));
    expect((await importCli([path], { url: server.url })).code).toBe(0);
    const journal = await readFile(`${path}.journal`, 'utf8');

    await writeFile(path, customersCsv(9, 3)); // the file changed: one more customer
    const foreign = await importCli([path], { url: server.url });
    expect(foreign.code).toBe(2);
    expect(foreign.stderr).toMatch(
      /^institution-api: .*\.journal was made for another file \(SHA-256 [0-9a-f]{12}…; this file's content is [0-9a-f]{12}…\);[^\n]*\n$/,
    );

    await writeFile(path, customersCsv(9, 2));
    await writeFile(`${path}.journal`, journal.replace('"line":2,', '"line":3,'));
    const tampered = await importCli([path], { url: server.url });
    expect(tampered.code).toBe(2);
    expect(tampered.stderr).toMatch(
      /is damaged at its line 2 \(no row of the file starts at line 3\)/,
    ); // the report of the last run that started is left as it was
    expect((await reportOf(`${path}.report.ndjson`)).map((r) => r.line)).toEqual([2, 4]);
    expect(await exists(`${path}.report.ndjson.tmp`)).toBe(false);
  });
});

describe('import: interruption and back-pressure', () => {
  it('Ctrl-C finishes the rows in flight, keeps the journal, says how to resume, exits 130', async () => {
    const count = 40;
    const path = await file(customersCsv(10, count));
    let interrupt: ((signal: 'SIGINT') => void) | undefined;
    let sent = 0;
    const first = await importCli([path, '--concurrency', '4'], {
      url: server.url,
      onInterrupt: (handler) => {
        interrupt = handler;
        return () => {};
      },
      fetch: (input, init) => {
        if (++sent === 10) interrupt?.('SIGINT');
        return globalThis.fetch(input, init);
      },
    });
    expect(first.code).toBe(130);
    expect(first.stderr).toContain(`Resume with: institution-api import ${path} --concurrency 4\n`);
    const interrupted = await reportOf(`${path}.report.ndjson`);
    expect(interrupted.length).toBeGreaterThanOrEqual(10); // the rows in flight finished
    expect(interrupted.length).toBeLessThan(count);

    const resumed = await importCli([path, '--concurrency', '4'], { url: server.url });
    expect(resumed.code).toBe(0);
    const report = await reportOf(`${path}.report.ndjson`);
    expect(report.map((r) => r.line).sort((a, b) => a - b)).toEqual(
      Array.from({ length: count }, (_, i) => csvLine(i)),
    );
    // nothing was in flight unrecorded, so nothing was sent twice: every row is a new user
    expect(report.every((r) => r.outcome === 'created')).toBe(true);
    expect(new Set(report.map((r) => r.userId)).size).toBe(count);
  }, 30_000);

  it('--retry-failed sends the failed rows again; the report still has each row once', async () => {
    const path = await file(customersCsv(13, 4));
    const failing = customer(13, 2).email;
    const { fetch } = recordingFetch((input, init) =>
      requestOf(input, init)
        .text()
        .then((body) =>
          body.includes(failing)
            ? Promise.reject(new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } }))
            : globalThis.fetch(input, init),
        ),
    );
    const first = await importCli([path], { url: server.url, fetch });
    expect(first.code).toBe(1);
    expect(
      (await reportOf(`${path}.report.ndjson`)).find((r) => r.line === csvLine(2)),
    ).toMatchObject({
      outcome: 'failed',
    });
    // the same command skips it: a failed row is a finished row
    expect((await importCli([path], { url: server.url })).code).toBe(1);
    const retried = await importCli([path, '--retry-failed'], { url: server.url });
    expect(retried.code).toBe(0);
    const report = await reportOf(`${path}.report.ndjson`);
    expect(
      report.map((r) => [r.line, r.outcome]).sort((a, b) => Number(a[0]) - Number(b[0])),
    ).toEqual([0, 1, 2, 3].map((i) => [csvLine(i), 'created']));
  }, 30_000);

  for (const status of [503, 429]) {
    it(`${status} with Retry-After slows the run down; no row fails, every row is created`, async () => {
      // A proxy that answers every request with `status` for 3.5 s once 5 rows went through:
      // longer than the client's 3 attempts a second apart, so rows go back to the queue.
      let forwarded = 0;
      let outageUntil = 0;
      let refused = 0;
      const proxy = createServer((incoming: IncomingMessage, outgoing: ServerResponse) => {
        if (forwarded >= 5 && outageUntil === 0) outageUntil = Date.now() + 3500;
        if (Date.now() < outageUntil) {
          refused++;
          incoming.resume();
          outgoing.writeHead(status, {
            'Retry-After': '1',
            'Content-Type': 'application/problem+json',
          });
          outgoing.end(JSON.stringify({ type: 'about:blank', title: 'busy', status }));
          return;
        }
        forwarded++;
        const forward = request(
          new URL(incoming.url ?? '/', server.url),
          {
            method: incoming.method,
            headers: incoming.headers,
          },
          (answer) => {
            outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(outgoing);
          },
        );
        incoming.pipe(forward);
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      try {
        const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
        const count = 30;
        const path = await file(customersCsv(status, count));
        const started = Date.now();
        const { code, stdout } = await importCli([path], { url });
        expect(code).toBe(0);
        expect(Date.now() - started).toBeGreaterThanOrEqual(3000); // it waited the outage out
        expect(refused).toBeGreaterThan(0);
        expect(stdout).toMatch(/slowed down (once|\d+ times) by 429\/503/);
        const report = await reportOf(`${path}.report.ndjson`);
        expect(report).toHaveLength(count);
        expect(report.every((r) => r.outcome === 'created')).toBe(true);
      } finally {
        proxy.closeAllConnections();
        await new Promise((resolve) => proxy.close(resolve));
      }
    }, 40_000);
  }
});

describe('institution-api dispatches import', () => {
  it('lists it in the usage, and import --help prints its own', async () => {
    let stdout = '';
    const io = { env: {}, stdout: (text: string) => (stdout += text), stderr: () => {} };
    expect(await main(['--help'], io)).toBe(0);
    expect(USAGE).toContain('institution-api import <file.csv|.ndjson>');
    stdout = '';
    expect(await main(['import', '--help'], io)).toBe(0);
    expect(stdout).toBe(IMPORT_USAGE);
  });
});
