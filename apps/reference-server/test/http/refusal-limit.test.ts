/**
 * The limit of refused requests (src/http/refusal-limit.ts; spec Assumptions, "Rate limits"): a
 * request refused for its signature is counted per client address and per presented public key,
 * known or not, before its diagnosis; over a limit it gets the 429 of the rate limit with
 * Retry-After and the RateLimit fields of the policy it is over, and no diagnosis. A request whose
 * signatures verify is never counted nor refused by it, whatever the refusals of its key or
 * address. Behind HAProxy and under load, with CPU measured: test/processes/refusal-flood.system.test.ts.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { clientAddress, refusalSlowdown } from '../../src/http/refusal-limit.js';
import type { InstitutionCredential } from '../../src/storage/types.js';
import {
  type Answer,
  cannotCount,
  newUser,
  type SendOptions,
  schemaErrors,
  startTestServer,
  type TestServer,
} from './harness.js';

const path = '/api/v1/external/users';
let base: TestServer;
beforeAll(async () => {
  base = await startTestServer();
});
afterAll(async () => {
  await base?.close();
});

/** A server on `base`'s database with these refusal limits (counts of its own), in the sandbox. */
async function limited(
  refusalLimits: NonNullable<Parameters<typeof startTestServer>[0]>['refusalLimits'],
  more: Parameters<typeof startTestServer>[0] = {},
): Promise<TestServer> {
  return startTestServer({ shareWith: base, sandboxDiagnosis: true, refusalLimits, ...more });
}

/** A create signed by `as` with another secret: refused, for a known key. */
const badlySigned = (as: InstitutionCredential): SendOptions => ({
  body: newUser(),
  as: { ...as, secretKey: `${as.secretKey}-not-it` },
});

/** A create signed by a key pair nobody issued. */
const unknownKey = (publicKey = `pk_${randomBytes(8).toString('hex')}`): SendOptions => ({
  body: newUser(),
  as: { publicKey, secretKey: 'sk_nobody_0123456789abcdef' },
});

function refusalOf(answer: Answer) {
  return {
    status: answer.status,
    diagnosed: (answer.body as { diagnosis?: unknown } | undefined)?.diagnosis !== undefined,
    policy: answer.headers.get('ratelimit-policy'),
    rateLimit: answer.headers.get('ratelimit'),
    retryAfter: answer.headers.get('retry-after'),
  };
}

describe('refused requests, limited per key (spec Assumptions, "Rate limits")', () => {
  test('a known key: its refusals are diagnosed up to the limit, then 429 with Retry-After, no diagnosis', async () => {
    const server = await limited({ perKey: 3 });
    try {
      const [alpha] = server.institutions as [InstitutionCredential];
      const answers: Answer[] = [];
      for (let i = 0; i < 5; i += 1)
        answers.push(await server.send('POST', path, badlySigned(alpha)));
      expect(answers.map((answer) => [answer.status, refusalOf(answer).diagnosed])).toEqual([
        [401, true],
        [401, true],
        [401, true],
        [429, false],
        [429, false],
      ]);
      const over = answers[3] as Answer;
      expect(over.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(over.body).toMatchObject({
        type: 'urn:institution-api:problem:rate-limited',
        status: 429,
        detail: expect.stringMatching(
          /^More than 3 requests signed with this public key were refused in a minute/,
        ),
      });
      expect(schemaErrors('Problem', over.body)).toEqual([]);
      const { policy, rateLimit, retryAfter } = refusalOf(over);
      expect(policy).toBe('"refusals-per-key";q=3;w=60');
      const [, seconds] = /^"refusals-per-key";r=0;t=(\d+)$/.exec(rateLimit ?? '') ?? [];
      expect(Number(seconds)).toBeGreaterThan(50);
      expect(retryAfter).toBe(seconds);
      // The 401s below the limit are the rate limit's business no more than before: no fields.
      expect(refusalOf(answers[0] as Answer).policy).toBeNull();
    } finally {
      await server.close();
    }
  });

  test("never refuses a valid request: the flooded key's own creates, and other keys' refusals, go on", async () => {
    const server = await limited({ perKey: 2 });
    try {
      const [alpha, beta] = server.institutions as [InstitutionCredential, InstitutionCredential];
      for (let i = 0; i < 4; i += 1) await server.send('POST', path, badlySigned(alpha));
      expect((await server.send('POST', path, badlySigned(alpha))).status).toBe(429);
      const valid = await server.send('POST', path, { body: newUser(), as: alpha });
      expect(valid.status).toBe(201);
      expect(valid.headers.get('ratelimit')).toBeNull();
      const other = await server.send('POST', path, badlySigned(beta));
      expect(refusalOf(other)).toMatchObject({ status: 401, diagnosed: true });
    } finally {
      await server.close();
    }
  });

  test('an unknown key is counted as a known one is: the 429 does not tell them apart', async () => {
    const server = await limited({ perKey: 2 });
    try {
      const [alpha] = server.institutions as [InstitutionCredential];
      const nobody = unknownKey();
      const known: number[] = [];
      const unknown: number[] = [];
      for (let i = 0; i < 3; i += 1) {
        known.push((await server.send('POST', path, badlySigned(alpha))).status);
        unknown.push((await server.send('POST', path, nobody)).status);
      }
      expect(unknown).toEqual(known);
      expect(known).toEqual([401, 401, 429]);
      // A key of 16 KB is counted by its digest, as any other.
      const long = unknownKey(`pk_${'k'.repeat(16_000)}`);
      expect((await server.send('POST', path, long)).status).toBe(401);
    } finally {
      await server.close();
    }
  });

  test('past a burst of refusals of one key, each answer waits a quarter of a second and has no diagnosis; made-up keys are not paced', async () => {
    // The pace of the tests: a burst of 2, then 1 a second (50, then 20 by default).
    const server = await limited({
      perKey: 1_000,
      perAddress: 1_000,
      slowdown: { burst: 2, perSecond: 1, ms: 250 },
    });
    try {
      const [alpha] = server.institutions as [InstitutionCredential];
      const timed = async (options: SendOptions) => {
        const started = performance.now();
        const answer = await server.send('POST', path, options);
        return { ...refusalOf(answer), ms: performance.now() - started };
      };
      const answers = [];
      for (let i = 0; i < 3; i += 1) answers.push(await timed(badlySigned(alpha)));
      expect(answers.map(({ status, diagnosed }) => [status, diagnosed])).toEqual([
        [401, true],
        [401, true],
        [401, false],
      ]);
      // A lower bound only: a busy machine may make any of them slower.
      expect(answers[2]?.ms).toBeGreaterThanOrEqual(250);
      expect(refusalSlowdown).toEqual({ burst: 50, perSecond: 20, ms: 250 });
      // Each of these keys is new: their refusals, from the same address, are not paced.
      const made = [];
      for (let i = 0; i < 6; i += 1) made.push(await timed(unknownKey()));
      expect(made.filter(({ ms }) => ms < 250).length).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });

  test('a replayed message signature is a refusal counted as the others', async () => {
    const server = await limited({ perKey: 1 });
    try {
      const [alpha] = server.institutions as [InstitutionCredential];
      const captured = server.prepare('POST', path, {
        body: newUser(),
        as: alpha,
        messageSignature: true,
      });
      expect((await server.sendCaptured(captured)).status).toBe(201);
      const replays = [await server.sendCaptured(captured), await server.sendCaptured(captured)];
      expect(replays.map((answer) => [answer.status, refusalOf(answer).diagnosed])).toEqual([
        [401, true],
        [429, false],
      ]);
    } finally {
      await server.close();
    }
  });
});

describe('refused requests, limited per client address', () => {
  test("whatever the keys; a valid request from that address is served, and other addresses' refusals are not counted", async () => {
    const server = await limited({ perAddress: 3 }, { trustProxy: ['loopback'] });
    try {
      const [alpha] = server.institutions as [InstitutionCredential];
      const from = (address: string): SendOptions => ({
        ...unknownKey(),
        headers: { 'x-forwarded-for': address },
      });
      const statuses: number[] = [];
      for (let i = 0; i < 4; i += 1) {
        statuses.push((await server.send('POST', path, from('203.0.113.7'))).status);
      }
      expect(statuses).toEqual([401, 401, 401, 429]);
      const over = await server.send('POST', path, from('203.0.113.7'));
      expect(refusalOf(over).policy).toBe('"refusals-per-address";q=3;w=60');
      expect(over.body).toMatchObject({
        detail: expect.stringMatching(/^More than 3 requests from this address were refused/),
      });
      expect((await server.send('POST', path, from('198.51.100.1'))).status).toBe(401);
      const valid = await server.send('POST', path, {
        body: newUser(),
        as: alpha,
        headers: { 'x-forwarded-for': '203.0.113.7' },
      });
      expect(valid.status).toBe(201);
    } finally {
      await server.close();
    }
  });

  test('without TRUST_PROXY, X-Forwarded-For is not believed: every refusal counts against the peer', async () => {
    const server = await limited({ perAddress: 2 });
    try {
      const statuses: number[] = [];
      for (const address of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) {
        statuses.push(
          (
            await server.send('POST', path, {
              ...unknownKey(),
              headers: { 'x-forwarded-for': address },
            })
          ).status,
        );
      }
      expect(statuses).toEqual([401, 401, 429]);
    } finally {
      await server.close();
    }
  });

  test('the first 429 of a window is logged as a warning, the next ones are not', async () => {
    const server = await limited({ perAddress: 1 });
    try {
      for (let i = 0; i < 4; i += 1) await server.send('POST', path, unknownKey());
      const warnings = server.logs().filter((line) => line.msg === 'refused requests limited');
      expect(warnings).toEqual([
        expect.objectContaining({ level: 'warn', policy: 'refusals-per-address', limit: 1 }),
      ]);
    } finally {
      await server.close();
    }
  });

  test('a database that cannot count answers 503 with Retry-After: 1 and no diagnosis', async () => {
    const server = await limited({ perKey: 10, perAddress: 10 }, { wrapStorage: cannotCount });
    try {
      const [alpha] = server.institutions as [InstitutionCredential];
      const refused = await server.send('POST', path, badlySigned(alpha));
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      // A valid request is not counted, so it does not need the count.
      expect((await server.send('POST', path, { body: newUser(), as: alpha })).status).toBe(201);
    } finally {
      await server.close();
    }
  });
});

describe('clientAddress', () => {
  test.each([
    ['127.0.0.1', '127.0.0.1'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::ffff', '2001:db8:1:2::/64'],
    ['::1', '0:0:0:0::/64'],
  ])('%s counts as %s', (ip, want) => {
    expect(clientAddress({ ip, socket: {} as never })).toBe(want);
  });
});
