/**
 * The client where Web Crypto is missing: a browser page served over plain HTTP from an address
 * other than localhost is not a secure context, so it has `crypto.getRandomValues` but no
 * `crypto.subtle`, and the signer's Web Crypto side cannot sign. A call resolves with the
 * client's error saying so and what to do, sends nothing, and is not retried.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { UsersClientError } from '../src/errors.js';
import { createUsersClient } from '../src/users-client.js';
import { CREDENTIALS, momoAccountUser, userCreatedNew } from './support/examples.js';
import { json, recordingFetch } from './support/recording-fetch.js';

vi.mock('@institution-api/signing/signer', async () =>
  (await import('./support/web-crypto-signer.js')).webCryptoSigner(),
);

describe('without Web Crypto (an insecure context)', () => {
  beforeEach(() => {
    vi.stubGlobal('crypto', { getRandomValues: crypto.getRandomValues.bind(crypto) });
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it.each([
    [
      'createUser',
      (users: ReturnType<typeof createUsersClient>) => users.createUser(momoAccountUser()),
    ],
    [
      'updateUser',
      (users: ReturnType<typeof createUsersClient>) =>
        users.updateUser(userCreatedNew().id, momoAccountUser()),
    ],
  ])(
    '%s resolves with a signing-unavailable error naming the cause and the fix; nothing sent, no retry',
    async (_name, call) => {
      const { fetch, sent } = recordingFetch(json(201, userCreatedNew()));
      const users = createUsersClient({
        baseUrl: 'http://192.168.1.20:8080',
        ...CREDENTIALS,
        fetch,
        retry: { retries: 3, baseDelayMs: 1, maxDelayMs: 1 },
      });
      const { data, error, response } = await call(users);
      expect(data).toBeUndefined();
      expect(response).toBeUndefined();
      expect(error).toBeInstanceOf(UsersClientError);
      expect(error?.kind).toBe('signing-unavailable');
      const message = (error as UsersClientError).message;
      expect(message).toMatch(/Web Crypto \(crypto\.subtle\) is not available/);
      expect(message).toMatch(/serve the page over HTTPS or from localhost/);
      expect(message).toMatch(/sign in your backend or through `institution-api sign-proxy`/);
      expect(message).not.toContain(CREDENTIALS.secretKey);
      expect(sent).toHaveLength(0);
    },
  );

  it('the raw client throws the same error, sending nothing', async () => {
    const { fetch, sent } = recordingFetch(json(201, userCreatedNew()));
    const users = createUsersClient({ baseUrl: 'http://192.168.1.20:8080', ...CREDENTIALS, fetch });
    const sending = users.raw.POST('/api/v1/external/users', { body: momoAccountUser() as never });
    await expect(sending).rejects.toMatchObject({ kind: 'signing-unavailable' });
    expect(sent).toHaveLength(0);
  });
});
