import { describe, expect, test } from 'vitest';
import { ConfigError } from '../../src/config.js';
import { refuseNewLongPublicKeys } from '../../src/credentials/long-public-keys.js';
import { maxPublicKeyLength } from '../../src/credentials/public-key-bounds.js';
import type { FoundCredential } from '../../src/storage/types.js';

const secretKey = 'a-secret-of-16-chars-or-more';
const stored: FoundCredential = {
  institutionId: 'i-legacy',
  institution: 'Legacy Bank',
  secretKey,
  expiresAt: null,
  revokedAt: null,
  signaturePolicy: 'any',
};
const legacyKey = `pk_${'l'.repeat(197)}`;
const storage = {
  findCredential: async (publicKey: string) => (publicKey === legacyKey ? stored : null),
};
const pair = (publicKey: string) => ({ institution: 'Bank', publicKey, secretKey });

describe('refuseNewLongPublicKeys: provisioning keeps an earlier release keys, makes no new long one', () => {
  test.each([
    { given: 'keys of at most 128 characters', keys: ['pk_a', 'k'.repeat(maxPublicKeyLength)] },
    { given: 'a longer key an earlier release stored', keys: [legacyKey] },
  ])('$given: provisioned', async ({ keys }) => {
    await expect(refuseNewLongPublicKeys(storage, keys.map(pair))).resolves.toBeUndefined();
  });

  test('a new longer key stops the start, naming its entry, never the secret', async () => {
    const error = await refuseNewLongPublicKeys(storage, [
      pair('pk_a'),
      pair('k'.repeat(maxPublicKeyLength + 1)),
    ]).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(
      'Invalid INSTITUTION_CREDENTIALS:\nINSTITUTION_CREDENTIALS[1].publicKey must be at most 128 characters (a longer one is kept only when an earlier release stored it).',
    );
    expect((error as Error).message).not.toContain(secretKey);
  });
});
