import { sign, verify } from '@institution-api/signing';
import type { MiddlewareCallbackParams } from 'openapi-fetch';
import { describe, expect, it } from 'vitest';
import { createSigningMiddleware } from '../src/signing-middleware.js';
import { CREDENTIALS } from './support/examples.js';

const middleware = createSigningMiddleware(CREDENTIALS);

async function run(request: Request, query?: Record<string, unknown>): Promise<Request> {
  const params = query === undefined ? {} : { query };
  const result = await middleware.onRequest?.({
    request,
    params,
    schemaPath: '/test',
    id: 'test',
    options: {} as MiddlewareCallbackParams['options'],
  });
  // A request with a body comes back as a new Request carrying the bytes that were read and
  // signed; one without keeps its Request, which gets the header.
  if (result === undefined && request.body === null) return request;
  if (!(result instanceof Request)) throw new Error('expected a Request');
  return result;
}

function signatureOf(request: Request): string {
  const header = request.headers.get('authorization') ?? '';
  expect(header.startsWith(`${CREDENTIALS.publicKey}:`)).toBe(true);
  return header.slice(CREDENTIALS.publicKey.length + 1);
}

describe('createSigningMiddleware', () => {
  it('signs the exact body bytes, whitespace and key order included, and keeps the body', async () => {
    const body = '{ "b": 1,\n  "a": "ü" }';
    const signed = await run(new Request('https://x.test/u', { method: 'POST', body }));
    expect(await verify(body, signatureOf(signed), CREDENTIALS.secretKey)).toBe(true);
    expect(
      await verify(JSON.stringify(JSON.parse(body)), signatureOf(signed), CREDENTIALS.secretKey),
    ).toBe(false);
    expect(await signed.text()).toBe(body);
    expect(signed.method).toBe('POST');
  });

  it.each(['PUT', 'PATCH', 'DELETE'])('signs the body of %s', async (method) => {
    const body = '{"x":1}';
    const signed = await run(new Request('https://x.test/u', { method, body }));
    expect(signatureOf(signed)).toBe(await sign(body, CREDENTIALS.secretKey));
  });

  it("signs the JSON-stringified query object of a GET, as the spec's InstitutionSignature prescribes", async () => {
    const query = { page: 2, q: 'Ama' };
    const signed = await run(new Request('https://x.test/u?page=2&q=Ama'), query);
    expect(signatureOf(signed)).toBe(await sign('{"page":2,"q":"Ama"}', CREDENTIALS.secretKey));
  });

  it('signs "{}" for a request with neither body nor query', async () => {
    const signed = await run(new Request('https://x.test/u', { method: 'DELETE' }));
    expect(signatureOf(signed)).toBe(await sign('{}', CREDENTIALS.secretKey));
  });

  it('replaces an Authorization header already on the request and keeps the others', async () => {
    const request = new Request('https://x.test/u', {
      method: 'POST',
      body: '{}',
      headers: { Authorization: 'pk_forged:00', 'X-Trace': 't-1' },
    });
    const signed = await run(request);
    expect(signatureOf(signed)).toBe(await sign('{}', CREDENTIALS.secretKey));
    expect(signed.headers.get('x-trace')).toBe('t-1');
  });

  it('honours the configured algorithm and encoding', async () => {
    const signature = { algorithm: 'sha512', encoding: 'base64' } as const;
    const sha512 = createSigningMiddleware({ ...CREDENTIALS, signature });
    const result = await sha512.onRequest?.({
      request: new Request('https://x.test/u', { method: 'POST', body: '{"a":1}' }),
      params: {},
      schemaPath: '/u',
      id: '1',
      options: {} as MiddlewareCallbackParams['options'],
    });
    const header = (result as Request).headers.get('authorization') ?? '';
    expect(header).toBe(
      `${CREDENTIALS.publicKey}:${await sign('{"a":1}', CREDENTIALS.secretKey, signature)}`,
    );
  });

  it('rejects unusable credentials at creation', () => {
    expect(() => createSigningMiddleware({ publicKey: 'a:b', secretKey: 's' })).toThrow(
      /publicKey/,
    );
    expect(() => createSigningMiddleware({ publicKey: 'pk', secretKey: '' })).toThrow(/secretKey/);
  });
});
