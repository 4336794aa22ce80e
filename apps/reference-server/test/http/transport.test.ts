import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  type Answer,
  errorsOf,
  newUser,
  schemaErrors,
  startTestServer,
  type TestServer,
} from './harness.js';

let server: TestServer;
let docsDir: string;
beforeAll(async () => {
  docsDir = await mkdtemp(join(tmpdir(), 'reference-server-docs-'));
  await writeFile(join(docsDir, 'index.html'), '<!doctype html><title>docs</title>');
  server = await startTestServer({ docsPage: join(docsDir, 'index.html') });
});
afterAll(async () => {
  await server?.close();
  if (docsDir) await rm(docsDir, { recursive: true, force: true });
});

const path = '/api/v1/external/users';

function expectProblem(answer: Answer, status: number, type: string) {
  expect(answer.status).toBe(status);
  expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(answer.body).toMatchObject({ type: `urn:institution-api:problem:${type}`, status });
  expect(schemaErrors('Problem', answer.body)).toEqual([]);
  expect(answer.text).not.toMatch(/at .+\.(js|ts):\d+/);
}

describe('bad transport input (signed, so it gets past authentication)', () => {
  test('invalid JSON answers 400 malformed-json', async () => {
    const answer = await server.send('POST', path, { body: '{"email": "a@b.co",' });
    expectProblem(answer, 400, 'malformed-json');
    expect(answer.body).toMatchObject({
      title: 'Malformed JSON',
      detail: 'The request body is not valid JSON.',
    });
  });

  test('bytes that are not UTF-8 answer 400 malformed-json', async () => {
    const answer = await server.send('POST', path, {
      body: new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]),
    });
    expectProblem(answer, 400, 'malformed-json');
  });

  test.each([
    ['text/plain'],
    ['application/x-www-form-urlencoded'],
    ['application/json; charset=latin1'],
    ['application/problem+json'],
  ])('Content-Type %s answers 415', async (contentType) => {
    const answer = await server.send('POST', path, {
      body: JSON.stringify(newUser()),
      headers: { 'content-type': contentType },
    });
    expectProblem(answer, 415, 'unsupported-media-type');
  });

  test('no Content-Type answers 415', async () => {
    const text = JSON.stringify(newUser());
    const answer = await server.send('POST', path, {
      body: new TextEncoder().encode(text),
      headers: { 'content-type': '' },
    });
    expectProblem(answer, 415, 'unsupported-media-type');
  });

  test('application/json; charset=utf-8 is JSON', async () => {
    const answer = await server.send('POST', path, {
      body: newUser(),
      headers: { 'content-type': 'application/json; charset=UTF-8' },
    });
    expect(answer.status).toBe(201);
  });

  test('a compressed body (Content-Encoding) answers 415', async () => {
    const answer = await server.send('POST', path, {
      body: newUser(),
      headers: { 'content-encoding': 'gzip' },
    });
    expectProblem(answer, 415, 'unsupported-media-type');
  });

  test('a body over 64 KiB answers 413, even unsigned', async () => {
    const big = JSON.stringify(newUser({ gender: 'x'.repeat(70_000) }));
    for (const as of [undefined, null]) {
      const answer = await server.send('POST', path, { body: big, as });
      expectProblem(answer, 413, 'payload-too-large');
      expect(answer.body).toMatchObject({
        detail: 'The request body is larger than 65536 bytes.',
      });
    }
  });

  test('a body of exactly 64 KiB is read (and then judged by the spec)', async () => {
    const base = JSON.stringify(newUser({ gender: '' }));
    const padded = base.replace('"gender":""', `"gender":"${'x'.repeat(65_536 - base.length)}"`);
    expect(Buffer.byteLength(padded)).toBe(65_536);
    const answer = await server.send('POST', path, { body: padded });
    expect(answer.status).toBe(400);
    expect(errorsOf(answer)).toEqual([
      { path: '/body/gender', message: 'gender must be at most 100 characters' },
    ]);
  });

  test.each([
    ['{"__proto__":{"isAdmin":true},"email":"a@b.co"}', '/body/__proto__'],
    ['{"kyc":{"constructor":{"prototype":{"x":1}}}}', '/body/kyc/constructor'],
    ['[{"a":{"prototype":1}}]', '/body/0/a/prototype'],
    // Spelled with JSON escapes: the text never holds the key's letters as such.
    ['{"\\u005f_proto__":{"isAdmin":true}}', '/body/__proto__'],
    ['{"kyc":{"\\u0063onstructor":1}}', '/body/kyc/constructor'],
    ['{"a":{"prot\\u006ftype":1}}', '/body/a/prototype'],
  ])('the key in %s answers 400 naming it, and pollutes nothing', async (text, pointer) => {
    const answer = await server.send('POST', path, { body: text });
    expectProblem(answer, 400, 'validation-error');
    expect(errorsOf(answer)).toEqual([
      {
        path: pointer,
        message: `${pointer.split('/').slice(2).join('.')} is not allowed as a key`,
      },
    ]);
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
  });

  test('a NUL character in a string answers 400 naming the field (PostgreSQL text cannot hold it)', async () => {
    const answer = await server.send('POST', path, {
      body: newUser({ kyc: { occupation: 'Trader\u0000' } }),
    });
    expectProblem(answer, 400, 'validation-error');
    expect(errorsOf(answer)).toEqual([
      {
        path: '/body/kyc/occupation',
        message: 'kyc.occupation must not contain the NUL character',
      },
    ]);
  });

  test('a top-level array answers 400 validation-error on /body', async () => {
    const answer = await server.send('POST', path, { body: [newUser()] });
    expectProblem(answer, 400, 'validation-error');
    expect(errorsOf(answer)).toEqual([
      { path: '/body', message: 'the body must be a JSON object (UserInput)' },
    ]);
  });

  test.each([['"a string"'], ['42'], ['null'], ['true']])(
    'a top-level %s answers 400 validation-error on /body',
    async (text) => {
      const answer = await server.send('POST', path, { body: text });
      expectProblem(answer, 400, 'validation-error');
      expect(errorsOf(answer)).toEqual([
        { path: '/body', message: 'the body must be a JSON object (UserInput)' },
      ]);
    },
  );

  test('an empty body answers 400 validation-error on /body', async () => {
    const answer = await server.send('POST', path, {
      body: '',
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(answer, 400, 'validation-error');
    expect(errorsOf(answer)).toEqual([
      { path: '/body', message: 'the body is required (a JSON object)' },
    ]);
  });

  test('deeply nested JSON is refused with a 400, not a crash', async () => {
    const depth = 30_000;
    const answer = await server.send('POST', path, {
      body: `${'['.repeat(depth)}${']'.repeat(depth)}`,
    });
    expect(answer.status).toBe(400);
  });

  test('a path parameter that is not valid percent-encoding answers 400, not 500', async () => {
    for (const method of ['PUT', 'GET']) {
      const answer = await server.send(method, `${path}/%E0%A4%A`, {
        ...(method === 'GET' ? {} : { body: newUser() }),
      });
      expectProblem(answer, 400, 'validation-error');
      expect(errorsOf(answer)).toEqual([
        { path: '/params', message: 'a path parameter is not valid percent-encoded UTF-8' },
      ]);
    }
  });

  test('an unknown query parameter answers 400 naming it', async () => {
    const answer = await server.send('POST', `${path}?debug=1`, { body: newUser() });
    expectProblem(answer, 400, 'validation-error');
    expect(errorsOf(answer)).toEqual([
      { path: '/query/debug', message: 'debug is not a query parameter of this operation' },
    ]);
  });
});

describe('routing', () => {
  test('an unknown route answers a 404 problem', async () => {
    for (const unknown of [
      '/api/v1/external/people',
      '/api/v2/external/users',
      '/users',
      '/API/V1/external/users',
    ]) {
      const answer = await server.send('POST', unknown, { body: newUser() });
      expectProblem(answer, 404, 'not-found');
      expect(answer.body).toMatchObject({ title: 'Not found' });
    }
  });

  test('a known path with another method answers 405 with Allow, before authentication', async () => {
    for (const [method, target, allow] of [
      ['GET', path, 'POST'],
      ['DELETE', path, 'POST'],
      ['PATCH', `${path}/6f1c1b7e-2a4d-4c3b-9e8f-0a1b2c3d4e5f`, 'PUT'],
      ['POST', `${path}/6f1c1b7e-2a4d-4c3b-9e8f-0a1b2c3d4e5f`, 'PUT'],
      ['POST', '/healthz', 'GET, HEAD'],
    ] as const) {
      const answer = await server.send(method, target, { as: null });
      expectProblem(answer, 405, 'method-not-allowed');
      expect(answer.headers.get('allow')).toBe(allow);
    }
  });
});

describe('request id', () => {
  test('a sane incoming X-Request-Id is echoed and logged', async () => {
    const answer = await server.send('POST', path, {
      body: newUser(),
      headers: { 'x-request-id': 'client-req.42' },
    });
    expect(answer.headers.get('x-request-id')).toBe('client-req.42');
    const access = server.logs().find((l) => l.reqId === 'client-req.42' && l.msg === 'request');
    expect(access).toMatchObject({
      method: 'POST',
      path,
      status: 201,
      institution: 'Alpha Savings',
    });
    expect(access?.latencyMs).toEqual(expect.any(Number));
  });

  test('a missing or insane X-Request-Id is replaced by a UUID', async () => {
    const variants: Record<string, string>[] = [
      {},
      { 'x-request-id': 'has spaces and $(jndi)' },
      { 'x-request-id': 'x'.repeat(200) },
    ];
    for (const headers of variants) {
      const answer = await server.send('GET', '/healthz', { as: null, headers });
      expect(answer.headers.get('x-request-id')).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      );
    }
  });
});

describe('unauthenticated routes', () => {
  test('GET /healthz answers 200 {status: ok}', async () => {
    const answer = await server.send('GET', '/healthz', { as: null });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ status: 'ok' });
  });

  test('GET /openapi.yaml and /openapi.json serve the bundled spec with their media types', async () => {
    const yaml = await server.send('GET', '/openapi.yaml', { as: null });
    expect(yaml.status).toBe(200);
    expect(yaml.headers.get('content-type')).toMatch(/^application\/yaml/);
    expect(yaml.text).toMatch(/^openapi: 3\.1\.0/);
    const json = await server.send('GET', '/openapi.json', { as: null });
    expect(json.headers.get('content-type')).toMatch(/^application\/json/);
    expect((json.body as { openapi: string }).openapi).toBe('3.1.0');
  });

  test('GET /docs serves the built docs page', async () => {
    const answer = await server.send('GET', '/docs', { as: null });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
    expect(answer.text).toContain('<title>docs</title>');
  });

  test('GET /docs before the docs are built answers a 404 problem saying how to build them', async () => {
    const unbuilt = await startTestServer({
      docsPage: join(docsDir, 'missing.html'),
      shareWith: server,
    });
    try {
      const answer = await unbuilt.send('GET', '/docs', { as: null });
      expectProblem(answer, 404, 'not-found');
      expect((answer.body as { detail: string }).detail).toContain('npm run build');
    } finally {
      await unbuilt.close();
    }
  });
});

describe('/healthz with a database that fails', () => {
  test('answers a 503 problem and logs the cause', async () => {
    const failing = await startTestServer({
      shareWith: server,
      wrapStorage: (storage) => ({
        ...storage,
        ping: () => Promise.reject(new Error('connection refused')),
      }),
    });
    try {
      const answer = await failing.send('GET', '/healthz', { as: null });
      expect(answer.status).toBe(503);
      expect(answer.body).toMatchObject({
        type: 'urn:institution-api:problem:unavailable',
        status: 503,
      });
      expect(answer.text).not.toContain('connection refused');
      expect(failing.logs().some((l) => l.msg === 'health check failed')).toBe(true);
    } finally {
      await failing.close();
    }
  });
});
