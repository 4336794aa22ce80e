import { afterEach, describe, expect, it, vi } from 'vitest';
import { signMessage } from '../src/message-signature-web.js';
import { WEB_CRYPTO_UNAVAILABLE, WebCryptoUnavailableError } from '../src/subtle-crypto.js';
import {
  clearKeyCache,
  KEY_CACHE_LIMIT,
  keyCacheSize,
  sign,
  signBody,
  signQuery,
  verify,
} from '../src/web-crypto.js';
import { SECRET, signingContract } from './support/contract.js';

signingContract('Web Crypto', { sign, signBody, signQuery, verify });

describe('Web Crypto: CryptoKey cache', () => {
  afterEach(() => {
    clearKeyCache();
    vi.restoreAllMocks();
  });

  const countImports = () => vi.spyOn(globalThis.crypto.subtle, 'importKey');

  it('reuses one key per (secret, algorithm)', async () => {
    clearKeyCache();
    await sign('{}', SECRET);
    await sign('{"a":1}', SECRET);
    await verify('{}', '00', SECRET);
    expect(keyCacheSize()).toBe(1);
    await sign('{}', SECRET, { algorithm: 'sha512' });
    expect(keyCacheSize()).toBe(2);
    // Encoding does not change the key.
    await sign('{}', SECRET, { encoding: 'base64' });
    expect(keyCacheSize()).toBe(2);
  });

  it(`is bounded to ${KEY_CACHE_LIMIT} entries and stays correct after eviction`, async () => {
    clearKeyCache();
    const first = await sign('{}', 'test_secret_lru_0');
    for (let i = 1; i < KEY_CACHE_LIMIT * 2; i++) {
      await sign('{}', `test_secret_lru_${i}`);
      expect(keyCacheSize()).toBeLessThanOrEqual(KEY_CACHE_LIMIT);
    }
    expect(keyCacheSize()).toBe(KEY_CACHE_LIMIT);
    // The first key was evicted long ago; re-importing must give the same signature.
    expect(await sign('{}', 'test_secret_lru_0')).toBe(first);
  });

  it('evicts the least recently used key, not the oldest inserted', async () => {
    clearKeyCache();
    for (let i = 0; i < KEY_CACHE_LIMIT; i++) await sign('{}', `test_secret_lru_${i}`);
    await sign('{}', 'test_secret_lru_0'); // touch: now the most recently used
    await sign('{}', 'test_secret_lru_new'); // full: evicts test_secret_lru_1
    const imports = countImports();
    await sign('{}', 'test_secret_lru_0');
    expect(imports).not.toHaveBeenCalled();
    await sign('{}', 'test_secret_lru_1');
    expect(imports).toHaveBeenCalledTimes(1);
  });

  it('does not keep a failed import', async () => {
    clearKeyCache();
    const imports = countImports().mockRejectedValueOnce(new Error('import failed'));
    await expect(sign('{}', 'test_secret_flaky')).rejects.toThrow('import failed');
    expect(keyCacheSize()).toBe(0);
    expect(await sign('{}', 'test_secret_flaky')).toMatch(/^[0-9a-f]{64}$/);
    expect(imports).toHaveBeenCalledTimes(2);
  });

  it('concurrent first calls share one import', async () => {
    clearKeyCache();
    const imports = countImports();
    const results = await Promise.all(
      Array.from({ length: 20 }, () => sign('{}', 'test_secret_concurrent')),
    );
    expect(new Set(results).size).toBe(1);
    expect(keyCacheSize()).toBe(1);
    expect(imports).toHaveBeenCalledTimes(1);
  });
});

describe('Web Crypto: where there is none (a page over plain HTTP, not from localhost)', () => {
  afterEach(() => {
    clearKeyCache();
    vi.unstubAllGlobals();
  });

  it('every signature and digest rejects with the one error, saying why and what to do', async () => {
    // What an insecure context has: random values, no `subtle`.
    vi.stubGlobal('crypto', { getRandomValues: crypto.getRandomValues.bind(crypto) });
    const unavailable = {
      name: 'WebCryptoUnavailableError',
      code: WEB_CRYPTO_UNAVAILABLE,
      message: expect.stringMatching(/secure context: served over HTTPS or from localhost/),
    };
    await expect(sign('{}', SECRET)).rejects.toBeInstanceOf(WebCryptoUnavailableError);
    await expect(sign('{}', SECRET)).rejects.toMatchObject(unavailable);
    await expect(verify('{}', '0'.repeat(64), SECRET)).rejects.toMatchObject(unavailable);
    const message = { method: 'POST', url: 'https://x.test/u', body: '{}' };
    await expect(signMessage(message, { keyId: 'pk', secretKey: SECRET })).rejects.toMatchObject(
      unavailable,
    );
  });
});
