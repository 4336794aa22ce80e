/**
 * `institution-api-conformance run` end to end, in-process, against the reference server and a
 * broken one: exit codes, the summary, the failure with its reproduction, the NDJSON and JUnit
 * reports, and no secret anywhere.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { startFaultyServer } from '../support/faulty-server.js';
import { CREDENTIALS, GALLERY } from '../support/gallery.js';
import { recordingIo } from '../support/io.js';
import { suiteServer } from '../support/suite-server.js';

const server = suiteServer();
let dir: string;
const env = {
  INSTITUTION_PUBLIC_KEY: CREDENTIALS[0].publicKey,
  INSTITUTION_SECRET_KEY: CREDENTIALS[0].secretKey,
  INSTITUTION_OTHER_PUBLIC_KEY: CREDENTIALS[1].publicKey,
  INSTITUTION_OTHER_SECRET_KEY: CREDENTIALS[1].secretKey,
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'conformance-run-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('run', { timeout: 120_000 }, () => {
  it('exits 0 on the reference server, with a summary and an NDJSON line per check and operation', async () => {
    const report = join(dir, 'clean.ndjson');
    const { io, stdout, stderr } = recordingIo({ ...env, INSTITUTION_API_URL: server().url });
    expect(
      await main(
        ['run', '--seed', '4', '--max-examples', '5', '--rate', '0', '--report', report],
        io,
      ),
    ).toBe(0);
    expect(stdout()).toMatch(
      /✔ no check failed: \d+ requests in [\d.]+ s .*; seed 4 \(replay with --seed 4\)\./,
    );
    expect(stdout()).toMatch(/^stateful_institution_scope +✔ \d+ +✔ \d+$/m);
    expect(stderr()).toMatch(/updateUser · invalid data: 10\/10 examples/);
    const lines = (await readFile(report, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.length).toBeGreaterThan(15);
    for (const line of lines)
      expect(line).toMatchObject({
        check: expect.any(String),
        operation: expect.any(String),
        ok: true,
      });
  });

  it('exits 1 on a broken server, printing the shrunk request and a reproduction without secrets', async () => {
    const fault = GALLERY.find((entry) => entry.caughtBy.includes('content_type_conformance'));
    const faulty = await startFaultyServer(
      server().url,
      (fault?.fault ?? (() => (request, forward) => forward(request)))({
        userInputProperties: [],
        kycProperties: [],
      }),
    );
    try {
      const report = join(dir, 'broken.ndjson');
      const junit = join(dir, 'broken.xml');
      const { io, stdout } = recordingIo({ ...env, INSTITUTION_API_URL: faulty.url });
      expect(
        await main(
          [
            'run',
            '--seed',
            '4',
            '--max-examples',
            '5',
            '--rate',
            '0',
            '--report',
            report,
            '--junit',
            junit,
          ],
          io,
        ),
      ).toBe(1);
      const text = stdout();
      expect(text).toMatch(
        /^✖ content_type_conformance · createUser\n {2}a 400 of createUser came as application\/json/m,
      );
      expect(text).toContain(
        '  reproduce with bash, curl and openssl (reads the keys from the environment):',
      );
      expect(text).toContain(
        "authorization: <first institution's public key>:<HMAC-SHA256 hex of the body>",
      );
      expect(text).toMatch(/✖ \d+ check\(s\) failed/);
      const lines = (await readFile(report, 'utf8'))
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      const failed = lines.find(
        (line) => line.check === 'content_type_conformance' && line.operation === 'createUser',
      );
      expect(failed).toMatchObject({
        ok: false,
        message: expect.stringMatching(/came as application\/json/),
        requestsUntilCaught: expect.any(Number),
        shrunkBodyBytes: expect.any(Number),
      });
      expect(failed.reproduction).toMatch(/^#!\/usr\/bin\/env bash\n/);
      const xml = await readFile(junit, 'utf8');
      expect(xml).toMatch(
        /<testcase classname="createUser" name="content_type_conformance">\n {6}<failure message="a 400 of createUser came as application\/json/,
      );
      for (const output of [text, JSON.stringify(lines), xml]) {
        expect(output).not.toContain(CREDENTIALS[0].secretKey);
        expect(output).not.toContain(CREDENTIALS[1].secretKey);
      }
    } finally {
      await faulty.close();
    }
  });
});
