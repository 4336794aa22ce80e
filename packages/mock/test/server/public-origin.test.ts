/**
 * `startMockServer({ publicOrigin })`, as the reference server's PUBLIC_ORIGIN: a message
 * signature's `@scheme` and `@authority` (so `@target-uri`) are the origin clients call the mock
 * at, not whatever `Host` the mock received behind a proxy.
 */
import { signedRequest } from '@institution-api/test-support/signed-request';
import { distinctUserBody } from '@institution-api/test-support/user-bodies';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type MockServer, startMockServer } from '../../src/server/mock-server.js';

const strict = {
  institution: 'Strict',
  publicKey: 'strict-key',
  secretKey: 'strict-secret-0123456789',
  messageSignature: 'required' as const,
};
const publicOrigin = 'https://mock.example.test';
const users = '/api/v1/external/users';

let mock: MockServer;
beforeAll(async () => {
  mock = await startMockServer({ institutions: [strict], port: 0, publicOrigin });
});
afterAll(() => mock?.close());

/** A create signed both ways, its message signature covering `@target-uri` of `signedFor`. */
async function create(signedFor: string) {
  const request = signedRequest('POST', `${mock.url}${users}`, strict, {
    body: distinctUserBody(),
    messageSignature: { url: signedFor, components: ['@method', '@target-uri', 'content-digest'] },
  });
  const response = await fetch(request.url, request);
  return response.status;
}

it('accepts a signature for the public origin, and refuses one for the address it listens on', async () => {
  expect(await create(`${publicOrigin}${users}`)).toBe(201);
  expect(await create(`${mock.url}${users}`)).toBe(401);
});
