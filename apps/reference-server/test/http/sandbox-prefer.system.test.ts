/**
 * `Prefer: code=NNN` on the reference server (spec: "Assumptions", "Sandbox: forcing an answer"):
 * honoured as `npm start` runs it, after the signature is checked and with nothing written;
 * ignored with NODE_ENV=production (the production image) unless SANDBOX_PREFER=1.
 */
import {
  type RunningServer,
  startReferenceServer,
} from '@institution-api/test-support/reference-server';
import { signedRequest } from '@institution-api/test-support/signed-request';
import { openapiDocument } from '@institution-api/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const pair = {
  institution: 'Sandbox Bank',
  publicKey: 'sandbox-key',
  secretKey: 'sandbox-secret-0123456789',
};
const body = JSON.stringify(
  (openapiDocument.components.examples as Record<string, { value: unknown }>).UserWithoutAccount
    ?.value,
);

function create(server: RunningServer, prefer: string, signed = true) {
  const request = signedRequest(
    'POST',
    `${server.url}/api/v1/external/users`,
    signed ? pair : null,
    {
      body,
      headers: { prefer },
      messageSignature: false,
    },
  );
  return fetch(request.url, request);
}

describe('in sandbox mode (no NODE_ENV, as npm start runs it)', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startReferenceServer({ credentials: [pair] });
  });
  afterAll(() => server?.stop());

  it('answers the documented status with its example body and headers, writing nothing', async () => {
    const forced = await create(server, 'code=503');
    expect(forced.status).toBe(503);
    expect(forced.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(forced.headers.get('retry-after')).toBe('1');
    expect(await forced.json()).toMatchObject({ type: 'urn:institution-api:problem:unavailable' });
    // nothing was written: the person is new to the service afterwards
    expect((await create(server, '')).status).toBe(201);
  });

  it('records the nonce of a request signed both ways before forcing its answer: its replay is refused', async () => {
    const request = signedRequest('POST', `${server.url}/api/v1/external/users`, pair, {
      body,
      headers: { prefer: 'code=409' },
    });
    expect((await fetch(request.url, request)).status).toBe(409);
    expect((await fetch(request.url, request)).status).toBe(401);
  });

  it('refuses a code the operation does not document, naming the header', async () => {
    const refused = await create(server, 'code=418');
    expect(refused.status).toBe(400);
    expect((await refused.json()).errors).toEqual([
      {
        path: '/headers/prefer',
        message: expect.stringMatching(/^prefer asks for a code createUser does not document/),
      },
    ]);
  });

  it('checks the signature first', async () => {
    expect((await create(server, 'code=201', false)).status).toBe(401);
  });
});

describe('with NODE_ENV=production', () => {
  it('ignores Prefer, and honours it with SANDBOX_PREFER=1', { timeout: 120_000 }, async () => {
    const production = await startReferenceServer({
      credentials: [pair],
      env: { NODE_ENV: 'production' },
    });
    try {
      expect((await create(production, 'code=503')).status).toBe(201);
    } finally {
      await production.stop();
    }
    const sandbox = await startReferenceServer({
      credentials: [pair],
      env: { NODE_ENV: 'production', SANDBOX_PREFER: '1' },
    });
    try {
      expect((await create(sandbox, 'code=503')).status).toBe(503);
    } finally {
      await sandbox.stop();
    }
  });
});
