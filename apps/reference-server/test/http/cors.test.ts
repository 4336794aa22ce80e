/**
 * CORS_ALLOW_ORIGINS (spec: Assumptions, "CORS"): without it the server answers no CORS at all;
 * with it, a listed origin's preflight is allowed, for `POST` and `PUT`, every header field the
 * client and the READMEs send, and its requests (signed as any other) can be read by the page,
 * errors included, with the request id and the rate-limit fields. Any other origin gets nothing a
 * browser would let through.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Answer, newUser, startTestServer, type TestServer } from './harness.js';

const docsOrigin = 'https://docs.example.com';
const users = '/api/v1/external/users';

/** The CORS response headers of an answer, by name. */
function corsHeaders(headers: Headers): Record<string, string> {
  return Object.fromEntries([...headers].filter(([name]) => name.startsWith('access-control-')));
}

/** Every field the client sends (a message signature, a call's `headers`), as a browser asks. */
const clientFields =
  'authorization,content-digest,content-type,prefer,signature,signature-input,x-request-id';
/** The fields the server allows, the spec's and its request id. */
const allowedFields =
  'Authorization, Content-Type, Prefer, Signature-Input, Signature, Content-Digest, X-Request-Id';
const exposedFields = 'X-Request-Id, RateLimit, RateLimit-Policy, Retry-After';

function preflight(server: TestServer, origin: string, path = users, fields = clientFields) {
  return server.send('OPTIONS', path, {
    as: null,
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': fields,
    },
  });
}

/** Whether a browser's CORS check lets the preflighted request go: every field asked allowed. */
function allows(answer: Answer, asked: string): boolean {
  const allowed = new Set(
    (answer.headers.get('access-control-allow-headers') ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase()),
  );
  return answer.status === 204 && asked.split(',').every((name) => allowed.has(name));
}

describe('CORS_ALLOW_ORIGINS unset (the default)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  test('a preflight is not allowed, for any origin: 405 with no CORS header', async () => {
    const answer = await preflight(server, docsOrigin);
    expect(answer.status).toBe(405);
    expect(corsHeaders(answer.headers)).toEqual({});
  });

  test('a request with an Origin is answered as usual, with no CORS header', async () => {
    const answer = await server.send('POST', users, {
      body: newUser(),
      headers: { origin: docsOrigin },
    });
    expect(answer.status).toBe(201);
    expect(corsHeaders(answer.headers)).toEqual({});
  });
});

describe('CORS_ALLOW_ORIGINS set', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ corsAllowOrigins: [docsOrigin, 'http://localhost:8081'] });
  });
  afterAll(() => server?.close());

  test.each([users, `${users}/0190c9f2-5d4e-7a1b-8c3d-4e5f6a7b8c9d`])(
    "a listed origin's preflight of %s is allowed every field the client sends, unsigned",
    async (path) => {
      const answer = await preflight(server, docsOrigin, path);
      expect(answer.status).toBe(204);
      expect(corsHeaders(answer.headers)).toEqual({
        'access-control-allow-origin': docsOrigin,
        'access-control-allow-methods': 'POST, PUT',
        'access-control-allow-headers': allowedFields,
        'access-control-max-age': '600',
      });
      expect(allows(answer, clientFields)).toBe(true);
      expect(answer.headers.get('vary')).toMatch(/\bOrigin\b/);
    },
  );

  test.each([
    ["the sandbox's Prefer (the client README, Testing)", 'authorization,content-type,prefer'],
    ["a call's X-Request-Id (the client's headers option)", 'content-type,x-request-id'],
    ["the message signature's fields", 'content-digest,signature,signature-input'],
  ])('a preflight asking for %s is allowed', async (_what, fields) => {
    expect(allows(await preflight(server, docsOrigin, users, fields), fields)).toBe(true);
  });

  test("a listed origin's signed request, and its refusal, are readable by the page", async () => {
    const created = await server.send('POST', users, {
      body: newUser(),
      headers: { origin: 'http://localhost:8081' },
    });
    expect(created.status).toBe(201);
    expect(corsHeaders(created.headers)).toEqual({
      'access-control-allow-origin': 'http://localhost:8081',
      'access-control-expose-headers': exposedFields,
    });
    expect(created.headers.get('x-request-id')).toBeTruthy();

    const refused = await server.send('POST', users, {
      body: newUser(),
      as: null,
      headers: { origin: docsOrigin, authorization: 'pk_nobody:0000' },
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe(docsOrigin);
    expect(refused.headers.get('access-control-expose-headers')).toBe(exposedFields);
  });

  test.each([
    ['another origin', 'https://evil.example.com'],
    ['a listed host on another scheme', 'http://docs.example.com'],
    ['a listed origin with a path', `${docsOrigin}/`],
    ['the opaque origin of a file or sandbox', 'null'],
  ])('%s gets no CORS header, and its preflight a 405', async (_what, origin) => {
    const answer = await preflight(server, origin);
    expect(answer.status).toBe(405);
    expect(corsHeaders(answer.headers)).toEqual({});
    expect(answer.headers.get('vary')).toMatch(/\bOrigin\b/);

    const sent = await server.send('POST', users, { body: newUser(), headers: { origin } });
    expect(sent.status).toBe(201);
    expect(corsHeaders(sent.headers)).toEqual({});
  });
});
