/**
 * Per-call overhead of the client, measured against baselines in the same run: every variant
 * POSTs the same user to the same stubbed `fetch`, which answers a canned `201` without any
 * network, so the figures are the client's own cost (serialization, signing, `Request`
 * copies, timeout signals, normalization). Run with `npm run bench` (`vitest bench --run`);
 * vitest prints each group's ratios against its fastest entry.
 */
import { createHmac } from 'node:crypto';
import { sign } from '@institution-api/signing';
import type { paths } from '@institution-api/types';
import createClient from 'openapi-fetch';
import { bench, describe } from 'vitest';
import { createSigningMiddleware } from '../src/signing-middleware.js';
import { createUsersClient } from '../src/users-client.js';
import { CREDENTIALS, momoAccountUser, userCreatedNew } from '../test/support/examples.js';

const BASE_URL = 'https://institution.example.com';
const URL_CREATE = `${BASE_URL}/api/v1/external/users`;
const body = momoAccountUser();
const bodyText = JSON.stringify(body);
const answer = JSON.stringify(userCreatedNew());

/** The same canned answer for everyone; a fresh Response per call, since a body reads once. */
async function stubFetch(_input: RequestInfo | URL, _init?: RequestInit): Promise<Response> {
  return new Response(answer, { status: 201, headers: { 'Content-Type': 'application/json' } });
}

const bare = createClient<paths>({ baseUrl: BASE_URL, fetch: stubFetch });
const signedOnly = createClient<paths>({ baseUrl: BASE_URL, fetch: stubFetch });
signedOnly.use(createSigningMiddleware(CREDENTIALS));
const users = createUsersClient({ baseUrl: BASE_URL, ...CREDENTIALS, fetch: stubFetch });
const usersNoRetry = createUsersClient({
  baseUrl: BASE_URL,
  ...CREDENTIALS,
  fetch: stubFetch,
  retry: false,
});

describe(`createUser per call (${Buffer.byteLength(bodyText)}-byte body, stubbed fetch)`, () => {
  bench('baseline: plain fetch + JSON.stringify + response.json()', async () => {
    const response = await stubFetch(URL_CREATE, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    await response.json();
  });

  bench('bare openapi-fetch POST (no signing)', async () => {
    await bare.POST('/api/v1/external/users', { body: body as never });
  });

  bench('openapi-fetch POST + signing middleware', async () => {
    await signedOnly.POST('/api/v1/external/users', { body: body as never });
  });

  bench('createUser, retry: false (signing, timeout, normalize)', async () => {
    await usersNoRetry.createUser(body);
  });

  bench('createUser, defaults (signing, timeout, retries armed, normalize)', async () => {
    await users.createUser(body);
  });
});

describe(`signing throughput (${Buffer.byteLength(bodyText)}-byte body)`, () => {
  bench('baseline: node:crypto createHmac sha256 hex', () => {
    createHmac('sha256', CREDENTIALS.secretKey).update(bodyText).digest('hex');
  });

  bench('@institution-api/signing sign (Web Crypto, sha256 hex)', async () => {
    await sign(bodyText, CREDENTIALS.secretKey);
  });
});
