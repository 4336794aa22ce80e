import { describe, expect, test } from 'vitest';
import { generateCredential } from '../../src/credentials/generate-credential.js';
import { issueCredential } from '../../src/credentials/issue-credential.js';
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
  test('stores a fresh pair for the institution; its earlier pairs keep working', async () => {
    const storage = await openStorage('memory://', { defaultDataDir: '/nonexistent' });
    try {
      const first = await issueCredential(storage, '  Bank A ');
      const second = await issueCredential(storage, 'Bank A');
      expect(first.institution).toBe('Bank A');
      const found = await storage.findCredential(second.publicKey);
      expect(found).toMatchObject({ institution: 'Bank A', secretKey: second.secretKey });
      expect((await storage.findCredential(first.publicKey))?.institutionId).toBe(
        found?.institutionId,
      );
      expect(await storage.countInstitutions()).toBe(1);
      await expect(issueCredential(storage, ' ')).rejects.toThrow('must not be empty');
    } finally {
      await storage.close();
    }
  });
});
