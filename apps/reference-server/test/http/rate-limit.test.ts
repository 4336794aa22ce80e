/**
 * RATE_LIMIT_PER_MINUTE over HTTP (spec Assumptions, "Rate limits"): the 429, and the RateLimit header
 * fields on every answer to an authenticated request, on the embedded database. Across several
 * processes on PostgreSQL: test/processes/shared-rate-limit.system.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  type Answer,
  cannotCount,
  newUser,
  schemaErrors,
  startTestServer,
  type TestServer,
} from './harness.js';

/** The two fields of an answer, and the values of `RateLimit`. */
function rateLimitOf(answer: Answer) {
  const field = answer.headers.get('ratelimit');
  const match = /^"per-institution";r=(\d+);t=(\d+)$/.exec(field ?? '');
  return {
    policy: answer.headers.get('ratelimit-policy'),
    field,
    remaining: match ? Number(match[1]) : undefined,
    resetSeconds: match ? Number(match[2]) : undefined,
  };
}

const unknownUser = '/api/v1/external/users/0190a0c4-1a2b-7c3d-8e4f-5a6b7c8d9e0f';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

describe('RATE_LIMIT_PER_MINUTE (spec Assumptions, "Rate limits")', () => {
  test('off by default: never 429, and no RateLimit fields', async () => {
    // Signed updates of a user nobody has (404, nothing written): requests a limit would count,
    // unlike an unsigned or refused one.
    for (let i = 0; i < 30; i += 1) {
      const answer = await server.send('PUT', unknownUser, { body: newUser() });
      expect(answer.status).toBe(404);
      expect(answer.status).not.toBe(429);
      expect(answer.headers.get('ratelimit')).toBeNull();
      expect(answer.headers.get('ratelimit-policy')).toBeNull();
    }
    const created = await server.send('POST', '/api/v1/external/users', { body: newUser() });
    expect(created.status).toBe(201);
    expect(created.headers.get('ratelimit')).toBeNull();
  });

  test('counts down in RateLimit, then 429 with Retry-After: the same wait, for that institution only', async () => {
    const limited = await startTestServer({ shareWith: server, rateLimitPerMinute: 3 });
    try {
      const [alpha, beta] = limited.institutions;
      const created: Answer[] = [];
      for (let i = 0; i < 3; i += 1) {
        created.push(
          await limited.send('POST', '/api/v1/external/users', { body: newUser(), as: alpha }),
        );
      }
      expect(created.map((answer) => answer.status)).toEqual([201, 201, 201]);
      expect(created.map((answer) => rateLimitOf(answer).policy)).toEqual(
        Array(3).fill('"per-institution";q=3;w=60'),
      );
      expect(created.map((answer) => rateLimitOf(answer).remaining)).toEqual([2, 1, 0]);
      for (const answer of created) {
        expect(rateLimitOf(answer).resetSeconds).toBeGreaterThan(50);
        expect(rateLimitOf(answer).resetSeconds).toBeLessThanOrEqual(60);
      }

      const refused = await limited.send('POST', '/api/v1/external/users', {
        body: newUser(),
        as: alpha,
      });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(refused.body).toMatchObject({
        type: 'urn:institution-api:problem:rate-limited',
        status: 429,
      });
      expect(schemaErrors('Problem', refused.body)).toEqual([]);
      const { remaining, resetSeconds, policy } = rateLimitOf(refused);
      expect(policy).toBe('"per-institution";q=3;w=60');
      expect(remaining).toBe(0);
      expect(refused.headers.get('retry-after')).toBe(String(Math.max(1, resetSeconds ?? -1)));

      const other = await limited.send('POST', '/api/v1/external/users', {
        body: newUser(),
        as: beta,
      });
      expect(other.status).toBe(201);
      expect(rateLimitOf(other).remaining).toBe(2);
    } finally {
      await limited.close();
    }
  });

  test('RATE_LIMIT_WINDOW_SECONDS (for tests) shortens the window, and the fields and the 429 say so', async () => {
    const limited = await startTestServer({
      shareWith: server,
      rateLimitPerMinute: 1,
      rateLimitWindowSeconds: 2,
    });
    try {
      const [, , gamma] = limited.institutions;
      const send = () =>
        limited.send('POST', '/api/v1/external/users', { body: newUser(), as: gamma });
      const created = await send();
      expect(created.status).toBe(201);
      expect(rateLimitOf(created).policy).toBe('"per-institution";q=1;w=2');
      expect(rateLimitOf(created).resetSeconds).toBeLessThanOrEqual(2);
      const refused = await send();
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(2);
      expect(refused.body).toMatchObject({
        detail: expect.stringMatching(/^This institution sent more than 1 requests in 2 s;/),
      });
    } finally {
      await limited.close();
    }
  });

  test('every answer to an authenticated request carries both fields; unauthenticated ones neither', async () => {
    const limited = await startTestServer({ shareWith: server, rateLimitPerMinute: 100 });
    try {
      const gamma = limited.institutions[2];
      const answers = {
        created: await limited.send('POST', '/api/v1/external/users', {
          body: newUser(),
          as: gamma,
        }),
        invalid: await limited.send('POST', '/api/v1/external/users', {
          body: newUser({ email: 'not an email' }),
          as: gamma,
        }),
        notFound: await limited.send('PUT', unknownUser, { body: newUser(), as: gamma }),
        malformedJson: await limited.send('POST', '/api/v1/external/users', {
          body: '{"email":',
          as: gamma,
        }),
      };
      expect(Object.values(answers).map((answer) => answer.status)).toEqual([201, 400, 404, 400]);
      expect(Object.values(answers).map((answer) => rateLimitOf(answer).remaining)).toEqual([
        99, 98, 97, 96,
      ]);
      for (const answer of Object.values(answers)) {
        expect(rateLimitOf(answer).policy).toBe('"per-institution";q=100;w=60');
      }

      const unsigned = await limited.send('POST', '/api/v1/external/users', {
        body: newUser(),
        as: null,
      });
      expect(unsigned.status).toBe(401);
      expect(unsigned.headers.get('ratelimit')).toBeNull();
      expect(unsigned.headers.get('ratelimit-policy')).toBeNull();
      const tooLarge = await limited.send('POST', '/api/v1/external/users', {
        body: JSON.stringify({ padding: 'x'.repeat(70_000) }),
        as: gamma,
      });
      expect(tooLarge.status).toBe(413);
      expect(tooLarge.headers.get('ratelimit')).toBeNull();
      // The unsigned and the oversized requests spent nothing.
      const next = await limited.send('PUT', unknownUser, { body: newUser(), as: gamma });
      expect(rateLimitOf(next).remaining).toBe(95);
    } finally {
      await limited.close();
    }
  });

  test('a database that cannot count answers 503 with Retry-After: 1, never lets the request through', async () => {
    const limited = await startTestServer({
      shareWith: server,
      rateLimitPerMinute: 100,
      wrapStorage: cannotCount,
    });
    try {
      const body = newUser();
      const answer = await limited.send('POST', '/api/v1/external/users', { body });
      expect(answer.status).toBe(503);
      expect(answer.body).toMatchObject({ type: 'urn:institution-api:problem:unavailable' });
      expect(answer.headers.get('retry-after')).toBe('1');
      expect(answer.headers.get('ratelimit')).toBeNull();
      // Nothing was written: the same create through the healthy server is new.
      expect((await server.send('POST', '/api/v1/external/users', { body })).status).toBe(201);
    } finally {
      await limited.close();
    }
  });
});
