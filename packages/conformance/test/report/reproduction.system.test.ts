/**
 * The reproduction a failure prints is run here with bash, curl and openssl against the reference
 * server: it must send the same requests (signed at replay time from the environment) and get the
 * same answers, and carry no secret.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Exchange } from '../../src/http/exchange.js';
import { Traffic } from '../../src/http/traffic.js';
import { reproduction } from '../../src/report/reproduction.js';
import { bytesOf } from '../../src/run/links.js';
import { contract, example, operation } from '../support/exchanges.js';
import { CREDENTIALS } from '../support/gallery.js';
import { suiteServer } from '../support/suite-server.js';

const exec = promisify(execFile);
const server = suiteServer();
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'conformance-reproduction-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function replay(script: string) {
  const file = join(dir, 'reproduce.sh');
  await writeFile(file, script);
  const { stdout } = await exec('bash', [file], {
    cwd: dir,
    env: {
      PATH: process.env.PATH,
      INSTITUTION_API_URL: server().url,
      INSTITUTION_PUBLIC_KEY: CREDENTIALS[0].publicKey,
      INSTITUTION_SECRET_KEY: CREDENTIALS[0].secretKey,
      INSTITUTION_OTHER_PUBLIC_KEY: CREDENTIALS[1].publicKey,
      INSTITUTION_OTHER_SECRET_KEY: CREDENTIALS[1].secretKey,
    },
  });
  return [...stdout.matchAll(/^HTTP\/1\.1 (\d{3})/gm)].map((match) => Number(match[1]));
}

const person = (card: string, extra: Record<string, unknown> = {}) => ({
  ...example('UserWithoutAccount'),
  email: `replay.${card}@example.com`,
  ghanaCardNumber: `GHA-${card}-1`,
  otherName: "O'Neil \u2028 \u{1F600}",
  ...extra,
});

describe('reproduction', () => {
  it('replays a sequence, reading the id the create answered, with keys from the environment only', async () => {
    const traffic = new Traffic(
      server().url,
      { maxRequests: 10, rate: 0, deadline: Date.now() + 60_000 },
      { main: CREDENTIALS[0], other: CREDENTIALS[1] },
      {},
    );
    const create = operation('createUser');
    const update = operation('updateUser');
    const created = await traffic.send(create, {
      method: 'POST',
      target: '/api/v1/external/users',
      body: bytesOf(person('700100200')),
      authorization: { kind: 'signed', as: 'main' },
    });
    const id = String((created.answer?.json as { id?: string } | undefined)?.id);
    const updated = await traffic.send(update, {
      method: 'PUT',
      target: `/api/v1/external/users/${id}`,
      body: bytesOf(person('700100201')),
      authorization: { kind: 'signed', as: 'other' },
      idFrom: { parameter: 'id', property: 'id', value: id, exchange: 0 },
    });
    expect([created.answer?.status, updated.answer?.status]).toEqual([201, 404]);

    // Replayed on the same server: the person exists now (200), and the id comes from that answer.
    const script = reproduction([created, updated], {});
    expect(script).not.toContain(CREDENTIALS[0].secretKey);
    expect(script).not.toContain(CREDENTIALS[1].secretKey);
    expect(script).not.toContain(id);
    expect(script).not.toContain(created.request.headers.authorization ?? 'no header');
    expect(await replay(script)).toEqual([200, 404]);
  });

  it('creates first the resource a request was sent to, when that create came before the failure', async () => {
    const traffic = new Traffic(
      server().url,
      { maxRequests: 10, rate: 0, deadline: Date.now() + 60_000 },
      { main: CREDENTIALS[0] },
      {},
    );
    const producer = await traffic.send(operation('createUser'), {
      method: 'POST',
      target: '/api/v1/external/users',
      body: bytesOf(person('700100400')),
      authorization: { kind: 'signed', as: 'main' },
    });
    const id = String((producer.answer?.json as { id?: string } | undefined)?.id);
    const failing = await traffic.send(operation('updateUser'), {
      method: 'PUT',
      target: `/api/v1/external/users/${id}`,
      // the same person, so that the replayed create finds it again
      body: bytesOf(person('700100400', { gender: 'female' })),
      authorization: { kind: 'signed', as: 'main' },
      idFrom: { parameter: 'id', property: 'id', value: id, exchange: -1, producer },
    });
    expect(failing.answer?.status).toBe(200);
    const script = reproduction([failing], {});
    expect(script).toContain('# 1. POST /api/v1/external/users');
    expect(script).toContain('# 2. PUT /api/v1/external/users/<the id answer 1 gave>');
    expect(await replay(script)).toEqual([200, 200]);
  });

  it('replays each way of failing authentication as a 401, and a valid request as accepted', async () => {
    const traffic = new Traffic(
      server().url,
      { maxRequests: 10, rate: 0, deadline: Date.now() + 60_000 },
      { main: CREDENTIALS[0] },
      {},
    );
    const create = operation('createUser');
    const body = bytesOf(person('700100300'));
    const other = new TextEncoder().encode(JSON.stringify(person('700100300'), null, 2));
    const sent: Exchange[] = [];
    for (const authorization of [
      { kind: 'truncated' },
      { kind: 'wrong-secret', secret: 'conformance-wrong-secret' },
      { kind: 'unknown-key', publicKey: 'conformance-unknown-public-key' },
      { kind: 'literal', value: 'Bearer x' },
      { kind: 'none' },
      { kind: 'signed-text', text: other },
      { kind: 'signed', as: 'main' },
    ] as const) {
      sent.push(
        await traffic.send(create, {
          method: 'POST',
          target: '/api/v1/external/users',
          body,
          authorization,
        }),
      );
    }
    const statuses = sent.map((exchange) => exchange.answer?.status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401, 201]);
    expect(await replay(reproduction(sent, {}))).toEqual([401, 401, 401, 401, 401, 401, 200]);
    expect(contract.operations).toHaveLength(2);
  });
});
