/**
 * `run --message-signatures` against the reference server: with a key pair that requires RFC 9421
 * message signatures, the whole run (signed both ways) passes, the five message-signature checks
 * included; with a key pair whose policy is `any` (the Authorization header alone is enough), each
 * of the five fails, since what a captured request becomes without its signature fields is let in.
 * The reproduction of such a failure, run with bash, curl and openssl, gets the same answers.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  type RunningServer,
  startReferenceServer,
} from '@institution-api/test-support/reference-server';
import { openapiDocument } from '@institution-api/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reproduction } from '../src/report/reproduction.js';
import { type RunReport, runConformance } from '../src/run/run-conformance.js';

const REQUIRED = {
  institution: 'Strict Lender',
  publicKey: 'conformance-strict',
  secretKey: 'conformance-strict-secret-0123456789',
  messageSignature: 'required',
};
const ANY = {
  institution: 'Lax Lender',
  publicKey: 'conformance-lax',
  secretKey: 'conformance-lax-secret-0123456789',
};
const CHECKS = [
  'message_signature_body_changed',
  'message_signature_content_digest',
  'message_signature_path_changed',
  'message_signature_replay',
  'message_signature_stale',
];

let server: RunningServer;
let dir: string;
beforeAll(async () => {
  server = await startReferenceServer({ credentials: [REQUIRED, ANY] });
  dir = await mkdtemp(join(tmpdir(), 'conformance-message-signatures-'));
});
afterAll(async () => {
  await server?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const run = (key: { publicKey: string; secretKey: string }) =>
  runConformance({
    baseUrl: server.url,
    document: openapiDocument,
    seed: 5,
    rate: 0,
    maxExamples: 4,
    messageSignatures: true,
    credentials: { main: { publicKey: key.publicKey, secretKey: key.secretKey } },
  });

/** The message-signature results: check · operation → evaluated, failed. */
const messageSignatureResults = (report: RunReport) =>
  report.results
    .filter((result) => result.check.startsWith('message_signature_'))
    .map((result) => `${result.check} · ${result.operation}: ${result.failure ? 'failed' : 'ok'}`);

describe('run --message-signatures', () => {
  it('passes against a key pair that requires message signatures, every request signed both ways', async () => {
    const report = await run(REQUIRED);
    const failures = report.results
      .filter((result) => result.failure)
      .map((result) => `${result.check} · ${result.operation}: ${result.failure?.outcome.message}`);
    expect(failures).toEqual([]);
    expect(messageSignatureResults(report)).toEqual(
      CHECKS.flatMap((check) => [
        ...(check === 'message_signature_path_changed' ? [] : [`${check} · createUser: ok`]),
        `${check} · updateUser: ok`,
      ]),
    );
    // The rest of the run was accepted with the message signature the key requires.
    expect(
      report.results.find(
        (result) =>
          result.check === 'positive_data_acceptance' && result.operation === 'createUser',
      )?.evaluations,
    ).toBeGreaterThan(0);
  }, 120_000);

  it('fails each check against a key pair whose policy is any, and the reproduction replays it', async () => {
    const report = await run(ANY);
    expect(messageSignatureResults(report).filter((line) => line.endsWith('failed'))).toEqual(
      messageSignatureResults(report),
    );
    expect(new Set(report.results.filter((r) => r.failure).map((r) => r.check))).toEqual(
      new Set(CHECKS),
    );
    const replay = report.results.find(
      (result) => result.check === 'message_signature_replay' && result.operation === 'updateUser',
    )?.failure;
    expect(replay?.outcome.message).toMatch(
      /sent again as it was, without its message signature was answered 200: the service let it in/,
    );
    // The reproduction: the control and the replay with its message signature (refused: the nonce
    // was used), then without it (accepted on this key pair).
    const exchanges = replay?.exchanges ?? [];
    const script = reproduction(exchanges, {});
    expect(script).not.toContain(ANY.secretKey);
    const file = join(dir, 'reproduce.sh');
    await writeFile(file, script);
    const { stdout } = await promisify(execFile)('bash', [file], {
      cwd: dir,
      env: {
        PATH: process.env.PATH,
        INSTITUTION_API_URL: server.url,
        INSTITUTION_PUBLIC_KEY: ANY.publicKey,
        INSTITUTION_SECRET_KEY: ANY.secretKey,
      },
    });
    const statuses = [...stdout.matchAll(/^HTTP\/1\.1 (\d{3})/gm)].map((match) => Number(match[1]));
    expect(statuses).toEqual([201, ...exchanges.map((exchange) => exchange.answer?.status)]);
  }, 120_000);
});
