import { describe, expect, test } from 'vitest';
import { cachedCredentials, credentialTtlMs } from '../../src/credentials/credential-cache.js';
import type { FoundCredential } from '../../src/storage/types.js';

/** A storage whose key pairs the test changes, counting the queries it answers. */
function fakeStorage() {
  const pairs = new Map<string, FoundCredential>();
  const storage = {
    queries: 0,
    pairs,
    async findCredential(publicKey: string) {
      storage.queries += 1;
      return pairs.get(publicKey) ?? null;
    },
  };
  return storage;
}

const alpha: FoundCredential = {
  institutionId: 'i-alpha',
  institution: 'Alpha',
  secretKey: 'sk_alpha_1',
  expiresAt: null,
  revokedAt: null,
  signaturePolicy: 'any',
};

describe('cachedCredentials', () => {
  test('a key pair is read from the database once per TTL, not once per request', async () => {
    const storage = fakeStorage();
    storage.pairs.set('pk_alpha', alpha);
    let clock = 0;
    const find = cachedCredentials(storage, { ttlMs: 5_000, now: () => clock });
    for (let i = 0; i < 100; i += 1) expect(await find('pk_alpha')).toEqual(alpha);
    expect(storage.queries).toBe(1);
    clock = 5_001;
    await find('pk_alpha');
    expect(storage.queries).toBe(2);
  });

  test('a rotated secret and a revoked key take effect once the TTL has passed', async () => {
    const storage = fakeStorage();
    storage.pairs.set('pk_alpha', alpha);
    let clock = 0;
    const find = cachedCredentials(storage, { ttlMs: 5_000, now: () => clock });
    await find('pk_alpha');
    storage.pairs.set('pk_alpha', { ...alpha, secretKey: 'sk_alpha_2' });
    clock = 4_999;
    expect((await find('pk_alpha'))?.secretKey).toBe('sk_alpha_1');
    clock = 5_000;
    expect((await find('pk_alpha'))?.secretKey).toBe('sk_alpha_2');
    storage.pairs.delete('pk_alpha');
    clock = 10_001;
    expect(await find('pk_alpha')).toBeNull();
  });

  test('unknown keys are remembered too, and a failed query is not', async () => {
    const storage = fakeStorage();
    const find = cachedCredentials(storage, { now: () => 0 });
    await find('pk_nobody');
    await find('pk_nobody');
    expect(storage.queries).toBe(1);

    let failures = 1;
    const flaky = {
      async findCredential() {
        if (failures-- > 0) throw new Error('connection lost');
        return alpha;
      },
    };
    const findFlaky = cachedCredentials(flaky, { now: () => 0 });
    await expect(findFlaky('pk_alpha')).rejects.toThrow('connection lost');
    expect(await findFlaky('pk_alpha')).toEqual(alpha);
  });

  test('the server trusts a lookup for 5 s (docs/credentials.md)', () => {
    expect(credentialTtlMs).toBe(5_000);
  });
});
