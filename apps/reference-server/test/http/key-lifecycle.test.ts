import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { generateCredential } from '../../src/credentials/generate-credential.js';
import type { Storage } from '../../src/storage/types.js';
import { type Answer, newUser, startTestServer, type TestServer } from './harness.js';

const path = '/api/v1/external/users';

describe('a revoked or expired key answers exactly as an unknown one', () => {
  /** The server's clock (ms), moved by the tests: no waiting for a key to expire. */
  let clock = Date.now();
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ now: () => clock });
  });
  afterAll(() => server?.close());

  /** A create signed with `secretKey` under `publicKey`, with a fixed request id. */
  const create = (publicKey: string, secretKey: string, text: string): Promise<Answer> =>
    server.send('POST', path, {
      body: text,
      as: { publicKey, secretKey },
      headers: { 'x-request-id': 'same-request-id' },
    });

  /** Every response header but `date`, which only says when. */
  const headersOf = (answer: Answer) =>
    [...answer.headers.entries()].filter(([name]) => name !== 'date');

  test('same status, headers and body bytes for an unknown, a revoked and an expired key', async () => {
    const revoked = generateCredential('Alpha Savings');
    const expired = generateCredential('Alpha Savings');
    // Never looked up before they are refused: no cache is in the way of this test.
    await server.storage.issueCredential(revoked, { actor: 'test', expiresAt: null });
    await server.storage.revokeCredential(revoked.publicKey, { actor: 'test', reason: 'leaked' });
    await server.storage.issueCredential(expired, {
      actor: 'test',
      expiresAt: new Date(clock - 1000),
    });
    const text = JSON.stringify(newUser());
    const unknown = await create(
      'pk_nobody_has_this_key0',
      'sk_a_guessed_secret_key_0123456789',
      text,
    );
    const answers = [
      await create(revoked.publicKey, revoked.secretKey, text),
      await create(expired.publicKey, expired.secretKey, text),
    ];
    expect(unknown.status).toBe(401);
    for (const answer of answers) {
      expect(answer.status).toBe(unknown.status);
      expect(answer.text).toBe(unknown.text);
      expect(headersOf(answer)).toEqual(headersOf(unknown));
    }
    // Only the log tells them apart, for the operator.
    const reasons = server
      .logs()
      .filter((line) => line.msg === 'authentication failed')
      .slice(-3)
      .map((line) => [line.reason, line.publicKey]);
    expect(reasons).toEqual([
      // An unknown key is not logged: a value in its place could be a secret sent by mistake.
      ['unknown-public-key', undefined],
      ['revoked-public-key', revoked.publicKey],
      ['expired-public-key', expired.publicKey],
    ]);
  });

  test('a key is refused from the moment it expires, even while its lookup is cached', async () => {
    const soon = generateCredential('Alpha Savings');
    await server.storage.issueCredential(soon, {
      actor: 'test',
      expiresAt: new Date(clock + 3000),
    });
    const before = await create(soon.publicKey, soon.secretKey, JSON.stringify(newUser()));
    expect(before.status).toBe(201);
    clock += 3001;
    // Within the cache's 5 s (on the same clock): the lookup is not asked again, the clock is.
    const after = await create(soon.publicKey, soon.secretKey, JSON.stringify(newUser()));
    expect(after.status).toBe(401);
  });
});

describe('"last used"', () => {
  test('is written on the first authenticated request of a key and then at most once a minute, off the request', async () => {
    const writes: string[] = [];
    const server = await startTestServer({
      wrapStorage: (storage): Storage => ({
        ...storage,
        recordCredentialUse: (publicKey) => {
          writes.push(publicKey);
          return storage.recordCredentialUse(publicKey);
        },
      }),
    });
    try {
      const [alpha, beta] = server.institutions;
      for (let i = 0; i < 10; i++) {
        expect((await server.send('POST', path, { body: newUser() })).status).toBe(201);
      }
      expect((await server.send('POST', path, { body: newUser(), as: beta })).status).toBe(201);
      // Refused requests are no use of a key.
      await server.send('POST', path, {
        body: newUser(),
        headers: { authorization: `${alpha?.publicKey}:${'0'.repeat(64)}` },
        as: null,
      });
      expect(writes).toEqual([alpha?.publicKey, beta?.publicKey]);
      const listed = await server.storage.listCredentials();
      const lastUsed = new Map(listed.map((r) => [r.publicKey, r.lastUsedAt]));
      expect(lastUsed.get(alpha?.publicKey ?? '')).toBeInstanceOf(Date);
      expect(lastUsed.get(server.institutions[2]?.publicKey ?? '')).toBeNull();
    } finally {
      await server.close();
    }
  });

  test('a failure to write it never fails the request', async () => {
    let failures = 0;
    const server = await startTestServer({
      wrapStorage: (storage): Storage => ({
        ...storage,
        recordCredentialUse: () => {
          failures += 1;
          return Promise.reject(new Error('the database is unavailable: disk full'));
        },
      }),
    });
    try {
      expect((await server.send('POST', path, { body: newUser() })).status).toBe(201);
      expect(failures).toBe(1);
      const logged = server.logs().find((line) => line.msg === 'last use of a key not recorded');
      expect(logged).toMatchObject({
        level: 'debug',
        cause: 'the database is unavailable: disk full',
      });
    } finally {
      await server.close();
    }
  });
});
