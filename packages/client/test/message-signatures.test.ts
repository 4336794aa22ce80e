/**
 * Every request the client sends carries both signatures: the seed's `Authorization` and an RFC
 * 9421 message signature (`Content-Digest`, `Signature-Input`, `Signature`) that the reference
 * server's verifier accepts over the exact method, URL and body bytes; every attempt, retries
 * included, has a nonce and `created` of its own, since the service accepts a nonce once.
 */
import { readFile } from 'node:fs/promises';
import { parseAuthorization, verify } from '@institution-api/signing';
import { signMessageSync, signSync } from '@institution-api/signing/node';
import {
  type SeenRequest,
  verdictOf,
} from '@institution-api/test-support/message-signature-verdict';
import {
  sendJson,
  startServer,
  type TestServer,
} from '@institution-api/test-support/recording-server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createSigningMiddleware } from '../src/signing-middleware.js';
import { createUsersClient, type UsersClientOptions } from '../src/users-client.js';
import { CREDENTIALS, momoAccountUser, userCreatedNew, userUpdated } from './support/examples.js';
import { json, recordingFetch } from './support/recording-fetch.js';

const BASE_URL = 'https://institution.example.com';
const USER_ID = '3f0c9a52-6d1e-4b7a-9c2e-8a5d4f1b7e21';
const unavailable = {
  type: 'urn:institution-api:problem:unavailable',
  title: 'Service unavailable',
  status: 503,
};

function client(fetch: UsersClientOptions['fetch'], options: Partial<UsersClientOptions> = {}) {
  return createUsersClient({ baseUrl: BASE_URL, ...CREDENTIALS, fetch, retry: false, ...options });
}

async function authorizationVerifies(request: SeenRequest): Promise<boolean> {
  const header = parseAuthorization(headerValue(request, 'authorization'));
  if (header?.publicKey !== CREDENTIALS.publicKey) return false;
  return verify(request.bytes, header.signature, CREDENTIALS.secretKey);
}

function headerValue(request: SeenRequest, name: string): string | undefined {
  const { headers } = request;
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

let server: TestServer | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await server?.close();
  server = undefined;
});

/** A real server on 127.0.0.1; what it received, with the absolute URL each request was sent to. */
async function serve(answer: (n: number) => [number, unknown]) {
  server = await startServer((_request, response, n) => sendJson(response, ...answer(n)));
  const { url, requests } = server;
  const seen = () =>
    requests.map((request) => ({ ...request, url: `${url}${request.url}` }) as SeenRequest);
  return { url, seen };
}

describe('createUser and updateUser sign both ways', () => {
  it('createUser: Authorization and a message signature over the exact method, URL and bytes', async () => {
    const { fetch, sent } = recordingFetch(json(201, userCreatedNew()));
    const before = Math.floor(Date.now() / 1000);
    await client(fetch).createUser(momoAccountUser());
    const [request] = sent;
    if (request === undefined) throw new Error('nothing sent');

    expect(await authorizationVerifies(request)).toBe(true);
    const verdict = verdictOf(request);
    expect(verdict).toMatchObject({ status: 'valid', label: 'sig1' });
    if (verdict.status !== 'valid') return;
    expect(verdict.created).toBeGreaterThanOrEqual(before);
    expect(verdict.created).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    expect(verdict.nonce).toMatch(/^[0-9a-f]{32}$/);
    expect(request.headers.get('content-digest')).toMatch(/^sha-256=:[A-Za-z0-9+/]{43}=:$/);
    expect(request.headers.get('signature-input')).toContain(
      `sig1=("@method" "@path" "content-digest");created=${verdict.created};nonce="${verdict.nonce}";keyid="${CREDENTIALS.publicKey}";alg="hmac-sha256"`,
    );

    // bound to what was sent: another path, method or body does not verify
    const elsewhere = `${BASE_URL}/api/v1/external/users/${USER_ID}`;
    expect(verdictOf(request, { url: elsewhere })).toEqual({
      status: 'invalid',
      reason: 'wrong-signature',
    });
    expect(verdictOf(request, { method: 'PUT' })).toEqual({
      status: 'invalid',
      reason: 'wrong-signature',
    });
    const changed = new TextEncoder().encode(`${request.text} `);
    expect(verdictOf(request, { bytes: changed })).toEqual({
      status: 'invalid',
      reason: 'content-digest-mismatch',
    });
  });

  it("updateUser: the message signature covers the user's path", async () => {
    const { fetch, sent } = recordingFetch(json(200, userUpdated()));
    await client(fetch).updateUser(USER_ID, momoAccountUser());
    const [request] = sent;
    if (request === undefined) throw new Error('nothing sent');
    expect(request.url).toBe(`${BASE_URL}/api/v1/external/users/${USER_ID}`);
    expect(await authorizationVerifies(request)).toBe(true);
    expect(verdictOf(request)).toMatchObject({ status: 'valid' });
    // the captured update, replayed against another user, does not verify
    const otherUser = `${BASE_URL}/api/v1/external/users/00000000-0000-4000-8000-000000000000`;
    expect(verdictOf(request, { url: otherUser })).toMatchObject({ status: 'invalid' });
  });

  it("a caller's own Signature, Signature-Input or Content-Digest is replaced", async () => {
    const { fetch, sent } = recordingFetch(json(201, userCreatedNew()));
    await client(fetch, { headers: { Signature: 'sig1=:AAAA:' } }).createUser(momoAccountUser(), {
      headers: { 'signature-input': 'sig1=();created=1', 'Content-Digest': 'sha-256=:AAAA:' },
    });
    const [request] = sent;
    if (request === undefined) throw new Error('nothing sent');
    expect(verdictOf(request)).toMatchObject({ status: 'valid' });
  });

  it('a retry after 503 carries a new nonce and created, and the same bytes and Authorization', async () => {
    // Only Date is faked: the server, the sockets and the retry's wait run on real timers.
    vi.useFakeTimers({ toFake: ['Date'] });
    const start = new Date('2026-11-27T10:00:00Z').getTime();
    vi.setSystemTime(start);
    const { url, seen } = await serve((n) => {
      // the clock moves a minute before the service answers 503
      if (n === 0) vi.setSystemTime(start + 60_000);
      return n === 0 ? [503, unavailable] : [201, userCreatedNew()];
    });
    const users = createUsersClient({
      baseUrl: url,
      ...CREDENTIALS,
      retry: { retries: 1, baseDelayMs: 1, maxDelayMs: 1 },
    });
    const { error } = await users.createUser(momoAccountUser());
    expect(error).toBeUndefined();

    const [first, retry] = seen();
    if (first === undefined || retry === undefined) throw new Error('expected two attempts');
    const firstVerdict = verdictOf(first, { now: start / 1000 });
    const retryVerdict = verdictOf(retry, { now: start / 1000 + 60 });
    expect(firstVerdict).toMatchObject({ status: 'valid', created: start / 1000 });
    expect(retryVerdict).toMatchObject({ status: 'valid', created: start / 1000 + 60 });
    if (firstVerdict.status !== 'valid' || retryVerdict.status !== 'valid') return;
    expect(retryVerdict.nonce).not.toBe(firstVerdict.nonce);
    expect(headerValue(retry, 'signature')).not.toBe(headerValue(first, 'signature'));
    expect(Buffer.from(retry.bytes).equals(Buffer.from(first.bytes))).toBe(true);
    expect(headerValue(retry, 'authorization')).toBe(headerValue(first, 'authorization'));
    expect(await authorizationVerifies(retry)).toBe(true);
  });

  it('messageSignatures: false sends Authorization alone', async () => {
    const { fetch, sent } = recordingFetch(
      json(201, userCreatedNew()),
      json(201, userCreatedNew()),
    );
    const users = client(fetch, { messageSignatures: false });
    await users.createUser(momoAccountUser());
    await users.raw.POST('/api/v1/external/users', { body: momoAccountUser() as never });
    for (const request of sent) {
      expect(await authorizationVerifies(request)).toBe(true);
      expect(request.headers.has('signature-input')).toBe(false);
      expect(request.headers.has('signature')).toBe(false);
      expect(request.headers.has('content-digest')).toBe(false);
      expect(verdictOf(request)).toEqual({ status: 'absent' });
    }
  });
});

describe('the raw client signs both ways', () => {
  it('POST and PUT: Authorization and a message signature for the URL requested', async () => {
    const { fetch, sent } = recordingFetch(json(201, userCreatedNew()), json(200, userUpdated()));
    const { raw } = client(fetch);
    await raw.POST('/api/v1/external/users', { body: momoAccountUser() as never });
    await raw.PUT('/api/v1/external/users/{id}', {
      params: { path: { id: USER_ID } },
      body: momoAccountUser() as never,
    });
    expect(sent.map((request) => `${request.method} ${request.url}`)).toEqual([
      `POST ${BASE_URL}/api/v1/external/users`,
      `PUT ${BASE_URL}/api/v1/external/users/${USER_ID}`,
    ]);
    for (const request of sent) {
      expect(await authorizationVerifies(request)).toBe(true);
      expect(verdictOf(request)).toMatchObject({ status: 'valid' });
    }
  });

  it('a retry after 503 carries a new nonce and created', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const start = new Date('2026-11-27T10:00:00Z').getTime();
    vi.setSystemTime(start);
    const { url, seen } = await serve((n) => {
      if (n === 0) vi.setSystemTime(start + 60_000);
      return n === 0 ? [503, unavailable] : [201, userCreatedNew()];
    });
    const { raw } = createUsersClient({
      baseUrl: url,
      ...CREDENTIALS,
      retry: { retries: 1, baseDelayMs: 1, maxDelayMs: 1 },
    });
    const { response } = await raw.POST('/api/v1/external/users', {
      body: momoAccountUser() as never,
    });
    expect(response.status).toBe(201);
    const [first, retry] = seen();
    if (first === undefined || retry === undefined) throw new Error('expected two attempts');
    const firstVerdict = verdictOf(first, { now: start / 1000 });
    const retryVerdict = verdictOf(retry, { now: start / 1000 + 60 });
    expect(firstVerdict).toMatchObject({ status: 'valid', created: start / 1000 });
    expect(retryVerdict).toMatchObject({ status: 'valid', created: start / 1000 + 60 });
    if (firstVerdict.status !== 'valid' || retryVerdict.status !== 'valid') return;
    expect(retryVerdict.nonce).not.toBe(firstVerdict.nonce);
    expect(headerValue(retry, 'authorization')).toBe(headerValue(first, 'authorization'));
    expect(await authorizationVerifies(retry)).toBe(true);
  });
});

describe('createSigningMiddleware', () => {
  async function signed(request: Request, options = {}) {
    const middleware = createSigningMiddleware({ ...CREDENTIALS, ...options });
    const result = await middleware.onRequest?.({
      request,
      params: {},
      schemaPath: '/u',
      id: '1',
      options: {} as never,
    });
    const out = result instanceof Request ? result : request;
    const bytes = new Uint8Array(await out.clone().arrayBuffer());
    return { method: out.method, url: out.url, headers: out.headers, bytes };
  }

  it('adds a message signature beside Authorization, over the request URL', async () => {
    const request = await signed(
      new Request('https://x.test/base/u?page=1', { method: 'POST', body: '{"a":"Ɔ"}' }),
    );
    expect(await authorizationVerifies(request)).toBe(true);
    expect(verdictOf(request)).toMatchObject({ status: 'valid' });
    expect(verdictOf(request, { url: 'https://x.test/u' })).toMatchObject({ status: 'invalid' });
  });

  it('a request without a body covers the method and path, without Content-Digest', async () => {
    const request = await signed(
      new Request('https://x.test/u', {
        method: 'GET',
        headers: { 'Content-Digest': 'sha-256=:AAAA:' },
      }),
    );
    expect(request.headers.has('content-digest')).toBe(false);
    expect(request.headers.get('signature-input')).toMatch(/^sig1=\("@method" "@path"\);/);
    expect(verdictOf(request)).toMatchObject({ status: 'valid' });
  });

  it('messageSignatures: false adds Authorization alone', async () => {
    const request = await signed(new Request('https://x.test/u', { method: 'POST', body: '{}' }), {
      messageSignatures: false,
    });
    expect(await authorizationVerifies(request)).toBe(true);
    expect(verdictOf(request)).toEqual({ status: 'absent' });
  });
});

describe("the signing guide's example (docs/signing.md)", () => {
  it("is what the signing package gives for the spec's worked example", async () => {
    const readme = await readFile(new URL('../docs/signing.md', import.meta.url), 'utf8');
    const block = /\n## Signing\n[\s\S]*?```http\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    const shown = Object.fromEntries(
      block
        .trimEnd()
        .split('\n')
        .map((line) => [line.slice(0, line.indexOf(': ')), line.slice(line.indexOf(': ') + 2)]),
    );
    // The spec's worked example ("Signing requests"), as the README names it.
    const body =
      '{"email":"efua.owusu@example.com","firstName":"Efua","lastName":"Owusu","mobileNumber":"233201234567","ghanaCardNumber":"GHA-555444333-2","monthlyIncome":0}';
    const keys = { keyId: 'demo-public-key', secretKey: 'demo-secret-key-0123456789abcdef' };
    const fields = signMessageSync(
      { method: 'POST', url: 'http://localhost:8080/api/v1/external/users', body },
      { ...keys, created: 1795790434, nonce: 'YQZcoyIgojlwrZZZnVTH0A' },
    );
    expect(shown).toEqual({
      Authorization: `demo-public-key:${signSync(body, keys.secretKey)}`,
      'Content-Digest': fields['content-digest'],
      'Signature-Input': fields['signature-input'],
      Signature: fields.signature,
    });
  });
});
