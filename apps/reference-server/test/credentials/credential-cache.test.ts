import { describe, expect, test } from 'vitest';
import {
  cachedCredentials,
  credentialCacheBounds,
  credentialTtlMs,
} from '../../src/credentials/credential-cache.js';
import { maxPublicKeyLength } from '../../src/credentials/public-key-bounds.js';
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

describe('cachedCredentials: bounded memory, whatever callers send', () => {
  test(`a key longer than ${maxPublicKeyLength} characters is no one's: never looked up, never remembered`, async () => {
    const storage = fakeStorage();
    const find = cachedCredentials(storage, { now: () => 0 });
    for (let i = 0; i < 100; i += 1) {
      expect(await find(`pk_${String(i).padStart(16_000, 'k')}`)).toBeNull();
    }
    expect(await find('k'.repeat(maxPublicKeyLength + 1))).toBeNull();
    expect(storage.queries).toBe(0);
    expect(find.sizes().unknown.entries).toBe(0);
    // The longest a key may be is looked up as any other.
    await find('k'.repeat(maxPublicKeyLength));
    expect(storage.queries).toBe(1);
  });

  test('an earlier release stored a longer key: up to the longest stored key is looked up, no further', async () => {
    const storage = fakeStorage();
    const legacy = 'k'.repeat(200);
    storage.pairs.set(legacy, alpha);
    const find = cachedCredentials(storage, { now: () => 0, longestKey: legacy.length });
    expect(await find(legacy)).toEqual(alpha);
    expect(await find('k'.repeat(201))).toBeNull();
    expect(storage.queries).toBe(1);
  });

  test('unknown keys, however many, never push out a known one; their part stays within its bounds', async () => {
    const storage = fakeStorage();
    storage.pairs.set('pk_alpha', alpha);
    const bounds = { known: { entries: 10, bytes: 1e6 }, unknown: { entries: 50, bytes: 20_000 } };
    const find = cachedCredentials(storage, { now: () => 0, bounds });
    await find('pk_alpha');
    for (let i = 0; i < 5_000; i += 1) await find(`pk_made_up_${i}_${'x'.repeat(100)}`);
    const { unknown, known } = find.sizes();
    expect(unknown.entries).toBeLessThanOrEqual(50);
    expect(unknown.bytes).toBeLessThanOrEqual(20_000);
    expect(known.entries).toBe(1);
    const queries = storage.queries;
    expect(await find('pk_alpha')).toEqual(alpha);
    expect(storage.queries).toBe(queries);
  });

  test('the known part is bounded too, the oldest going first', async () => {
    const storage = fakeStorage();
    for (let i = 0; i < 5; i += 1) storage.pairs.set(`pk_${i}`, alpha);
    const bounds = { known: { entries: 3, bytes: 1e6 }, unknown: { entries: 3, bytes: 1e6 } };
    const find = cachedCredentials(storage, { now: () => 0, bounds });
    for (let i = 0; i < 5; i += 1) await find(`pk_${i}`);
    expect(find.sizes().known.entries).toBe(3);
    const queries = storage.queries;
    await find('pk_4');
    expect(storage.queries).toBe(queries);
    await find('pk_0');
    expect(storage.queries).toBe(queries + 1);
  });

  test('an entry past its TTL leaves once anything is added after it, not only when its part is full', async () => {
    const storage = fakeStorage();
    let clock = 0;
    const find = cachedCredentials(storage, { ttlMs: 5_000, now: () => clock });
    for (let i = 0; i < 1_000; i += 1) await find(`pk_gone_${i}`);
    expect(find.sizes().unknown.entries).toBe(1_000);
    clock = 5_001;
    await find('pk_later');
    expect(find.sizes().unknown.entries).toBe(1);
  });

  test('the default bounds: 10,000 known key pairs in 16 MiB; 4,096 unknown keys in 1 MiB', () => {
    expect(credentialCacheBounds).toEqual({
      known: { entries: 10_000, bytes: 16 * 1024 * 1024 },
      unknown: { entries: 4_096, bytes: 1024 * 1024 },
    });
  });
});
