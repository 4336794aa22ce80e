/**
 * The client on a runtime without the `node` export condition (browsers, edge workers), where
 * `@institution-api/signing/signer` resolves to its Web Crypto side and signatures arrive as
 * Promises. Vitest resolves the `node` side, so this file swaps in the published Web Crypto
 * module (the `default` condition's file) to keep that path tested.
 */
import { parseAuthorization, verify } from '@institution-api/signing';
import { verdictOf } from '@institution-api/test-support/message-signature-verdict';
import type { MiddlewareCallbackParams } from 'openapi-fetch';
import { describe, expect, it, vi } from 'vitest';
import { createSigningMiddleware } from '../src/signing-middleware.js';
import { createUsersClient } from '../src/users-client.js';
import { CREDENTIALS, momoAccountUser, userCreatedNew, userUpdated } from './support/examples.js';
import { json, recordingFetch } from './support/recording-fetch.js';

vi.mock('@institution-api/signing/signer', async () =>
  (await import('./support/web-crypto-signer.js')).webCryptoSigner(),
);

describe('on the Web Crypto side of the signer', () => {
  it('is really that side', async () => {
    const { SIGNER_RUNTIME } = await import('@institution-api/signing/signer');
    expect(SIGNER_RUNTIME).toBe('web-crypto');
  });

  it('createUser and updateUser sign the exact bytes sent, through crypto.subtle', async () => {
    const subtle = vi.spyOn(globalThis.crypto.subtle, 'sign');
    const { fetch, sent } = recordingFetch(json(201, userCreatedNew()), json(200, userUpdated()));
    const users = createUsersClient({
      baseUrl: 'https://institution.example.com',
      ...CREDENTIALS,
      fetch,
      signature: { algorithm: 'sha512', encoding: 'base64' },
    });
    const created = await users.createUser(momoAccountUser());
    const updated = await users.updateUser(userCreatedNew().id, momoAccountUser());
    expect(created.error).toBeUndefined();
    expect(updated.error).toBeUndefined();
    // per request, one HMAC for Authorization and one for the message signature
    expect(subtle).toHaveBeenCalledTimes(4);
    for (const request of sent) {
      expect(verdictOf(request)).toMatchObject({ status: 'valid' });
      const options = { algorithm: 'sha512', encoding: 'base64' } as const;
      const header = parseAuthorization(request.headers.get('authorization'), options);
      expect(header?.publicKey).toBe(CREDENTIALS.publicKey);
      expect(
        await verify(request.bytes, header?.signature ?? '', CREDENTIALS.secretKey, options),
      ).toBe(true);
    }
  });

  it('the signing middleware signs a body (both ways) and a query', async () => {
    const middleware = createSigningMiddleware(CREDENTIALS);
    const call = (request: Request, query?: Record<string, unknown>) =>
      middleware.onRequest?.({
        request,
        params: query ? { query } : {},
        schemaPath: '/u',
        id: '1',
        options: {} as MiddlewareCallbackParams['options'],
      });
    const posted = (await call(
      new Request('https://x.test/u', { method: 'POST', body: '{"a":"Ɔ"}' }),
    )) as Request;
    const header = parseAuthorization(posted.headers.get('authorization'));
    expect(await verify('{"a":"Ɔ"}', header?.signature ?? '', CREDENTIALS.secretKey)).toBe(true);
    expect(await posted.text()).toBe('{"a":"Ɔ"}');
    expect(
      verdictOf({
        method: 'POST',
        url: posted.url,
        headers: posted.headers,
        bytes: new TextEncoder().encode('{"a":"Ɔ"}'),
      }),
    ).toMatchObject({ status: 'valid' });
    const get = new Request('https://x.test/u?page=2');
    await call(get, { page: '2' });
    const query = parseAuthorization(get.headers.get('authorization'));
    expect(await verify('{"page":"2"}', query?.signature ?? '', CREDENTIALS.secretKey)).toBe(true);
  });
});
