import { describe, expect, test } from 'vitest';
import { parseDuration } from '../../src/credentials/duration.js';
import {
  encryptionKey,
  parseEncryptionKey,
  randomEncryptionKey,
} from '../../src/credentials/encryption-key.js';
import { openSecret, sealSecret } from '../../src/credentials/secret-box.js';

const secret = 'sk_a_secret_key_of_an_institution_0123';

describe('sealSecret and openSecret (AES-256-GCM)', () => {
  test('seal a secret under a key, with a fresh nonce each time, and open it again', () => {
    const key = randomEncryptionKey();
    const one = sealSecret(key, 'pk_a', secret);
    const two = sealSecret(key, 'pk_a', secret);
    expect(one.keyId).toBe(key.id);
    expect(one.nonce).toHaveLength(12);
    expect(one.tag).toHaveLength(16);
    expect(Buffer.from(one.ciphertext).includes(Buffer.from(secret))).toBe(false);
    expect(Buffer.from(one.nonce).equals(Buffer.from(two.nonce))).toBe(false);
    expect(openSecret({ current: key }, 'pk_a', one)).toBe(secret);
    expect(openSecret({ current: randomEncryptionKey(), previous: key }, 'pk_a', two)).toBe(secret);
  });

  test('refuse another key, another row, and an altered byte', () => {
    const key = randomEncryptionKey();
    const sealed = sealSecret(key, 'pk_a', secret);
    expect(() => openSecret({ current: randomEncryptionKey() }, 'pk_a', sealed)).toThrow(
      `The secret of pk_a is sealed with key ${key.id}, not given.`,
    );
    // Copied onto another public key's row, it does not open: the public key is authenticated.
    expect(() => openSecret({ current: key }, 'pk_b', sealed)).toThrow(
      `The secret of pk_b does not decrypt with key ${key.id}`,
    );
    const altered = Buffer.from(sealed.ciphertext);
    altered[0] = (altered[0] ?? 0) ^ 1;
    expect(() => openSecret({ current: key }, 'pk_a', { ...sealed, ciphertext: altered })).toThrow(
      /does not decrypt/,
    );
    // Another key that claims the same id is caught by the tag.
    const impostor = { ...randomEncryptionKey(), id: key.id };
    expect(() => openSecret({ current: impostor }, 'pk_a', sealed)).toThrow(/does not decrypt/);
  });
});

describe('parseEncryptionKey', () => {
  test('reads base64 of 32 bytes, as openssl rand -base64 32 prints it; its id is a fingerprint', () => {
    const bytes = Buffer.alloc(32, 7);
    const key = parseEncryptionKey('CREDENTIALS_ENCRYPTION_KEY', bytes.toString('base64'));
    expect(key.key.equals(bytes)).toBe(true);
    expect(key.id).toMatch(/^[0-9a-f]{16}$/);
    expect(key.id).toBe(encryptionKey(bytes).id);
    expect(key.id).not.toBe(encryptionKey(Buffer.alloc(32, 8)).id);
    expect(bytes.toString('hex')).not.toContain(key.id);
    expect(key.source).toBe('CREDENTIALS_ENCRYPTION_KEY');
  });

  test.each([
    ['too short', Buffer.alloc(16).toString('base64')],
    ['too long', Buffer.alloc(33).toString('base64')],
    ['hex', Buffer.alloc(32).toString('hex')],
    ['base64url', `${'-'.repeat(43)}=`],
  ])('refuses %s, never repeating it', (_, value) => {
    expect(() => parseEncryptionKey('CREDENTIALS_ENCRYPTION_KEY', value)).toThrow(
      'CREDENTIALS_ENCRYPTION_KEY must be 32 bytes in base64 (44 characters); make one with `openssl rand -base64 32`.',
    );
  });
});

test('parseDuration: 90s, 15m, 24h, 7d; anything else is undefined', () => {
  expect(parseDuration('90s')).toBe(90_000);
  expect(parseDuration('15m')).toBe(900_000);
  expect(parseDuration('24h')).toBe(86_400_000);
  expect(parseDuration('7d')).toBe(604_800_000);
  expect(parseDuration('0s')).toBe(0);
  for (const text of ['', '7', 'd', '1.5h', '-1h', '1w', '1 h', '10000000s']) {
    expect(parseDuration(text)).toBeUndefined();
  }
});
