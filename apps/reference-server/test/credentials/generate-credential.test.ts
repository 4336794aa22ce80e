import { describe, expect, test } from 'vitest';
import { generateCredential } from '../../src/credentials/generate-credential.js';
import { issueCredential, rotateCredentials } from '../../src/credentials/issue-credential.js';
import { parseInstitutionCredentials } from '../../src/credentials/parse-institution-credentials.js';
import { openStorage } from '../../src/storage/open-storage.js';

describe('generateCredential', () => {
  test('makes a pk_ key of 24 and an sk_ secret of 43 base64url characters', () => {
    const credential = generateCredential('Bank A');
    expect(credential.institution).toBe('Bank A');
    expect(credential.publicKey).toMatch(/^pk_[A-Za-z0-9_-]{24}$/);
    expect(credential.secretKey).toMatch(/^sk_[A-Za-z0-9_-]{43}$/);
    expect(credential.secretKey).not.toMatch(/sk_(live|test)/);
  });

  test('is random every time, and acceptable as INSTITUTION_CREDENTIALS', () => {
    const issued = Array.from({ length: 50 }, () => generateCredential('Bank A'));
    expect(new Set(issued.map((c) => c.publicKey)).size).toBe(50);
    expect(new Set(issued.map((c) => c.secretKey)).size).toBe(50);
    expect(parseInstitutionCredentials(JSON.stringify(issued))).toEqual(issued);
  });
});

describe('issueCredential', () => {
  test('stores a fresh pair for the institution, on record; its earlier pairs keep working', async () => {
    const storage = await openStorage('memory://', { defaultDataDir: '/nonexistent' });
    try {
      const first = await issueCredential(storage, '  Bank A ', { actor: 'alice' });
      const second = await issueCredential(storage, 'Bank A', {
        actor: 'alice',
        expiresInMs: 60_000,
        now: () => Date.parse('2030-01-01T00:00:00Z'),
      });
      expect(first.credential.institution).toBe('Bank A');
      expect(first.expiresAt).toBeNull();
      expect(second.expiresAt).toEqual(new Date('2030-01-01T00:01:00Z'));
      const found = await storage.findCredential(second.credential.publicKey);
      expect(found).toMatchObject({
        institution: 'Bank A',
        secretKey: second.credential.secretKey,
        expiresAt: second.expiresAt,
      });
      expect((await storage.findCredential(first.credential.publicKey))?.institutionId).toBe(
        found?.institutionId,
      );
      expect(await storage.countInstitutions()).toBe(1);
      expect(first.events.map((e) => [e.what, e.actor])).toEqual([['issued', 'alice']]);
      await expect(issueCredential(storage, ' ', { actor: 'alice' })).rejects.toThrow(
        'must not be empty',
      );
    } finally {
      await storage.close();
    }
  });
});

describe('rotateCredentials', () => {
  test("issues a pair and sets the institution's other active pairs to expire after the grace", async () => {
    const storage = await openStorage('memory://', { defaultDataDir: '/nonexistent' });
    try {
      const now = () => Date.parse('2030-01-01T00:00:00Z');
      const old = await issueCredential(storage, 'Bank A', { actor: 'alice' });
      const revoked = await issueCredential(storage, 'Bank A', { actor: 'alice' });
      await storage.revokeCredential(revoked.credential.publicKey, { actor: 'a', reason: null });
      const rotated = await rotateCredentials(storage, 'Bank A', {
        actor: 'bob',
        graceMs: 86_400_000,
        now,
      });
      expect(rotated?.credential.institution).toBe('Bank A');
      expect(rotated?.others.map((r) => [r.publicKey, r.expiresAt])).toEqual([
        [old.credential.publicKey, new Date('2030-01-02T00:00:00Z')],
      ]);
      expect(rotated?.events.map((e) => e.what)).toEqual(['rotated', 'expiry-set']);
      expect(
        await rotateCredentials(storage, 'Bank Z', { actor: 'bob', graceMs: 0 }),
      ).toBeUndefined();
    } finally {
      await storage.close();
    }
  });
});
