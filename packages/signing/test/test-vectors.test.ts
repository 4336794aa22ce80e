/**
 * Checks the published file itself. Its signatures were generated once with
 * `openssl dgst -<algorithm> -hmac <secretKey>` and are only ever compared against, never
 * recomputed here; the sign/verify checks of both implementations live in the contract
 * suite (test/support/contract.ts) run by web-crypto.test.ts and node.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { vectorFile, vectors } from './support/vectors.js';

describe('test-vectors.json', () => {
  it('has a description and the documented shape', () => {
    expect(vectorFile.description).toMatch(/HMAC/);
    for (const v of vectors) {
      expect(Object.keys(v).sort()).toEqual(
        ['algorithm', 'body', 'bodyBase64', 'encoding', 'name', 'secretKey', 'signature'].sort(),
      );
      expect(['sha256', 'sha512']).toContain(v.algorithm);
      expect(['hex', 'base64']).toContain(v.encoding);
    }
  });

  it('has unique names', () => {
    expect(new Set(vectors.map((v) => v.name)).size).toBe(vectors.length);
  });

  it('bodyBase64 is exactly the UTF-8 encoding of body', () => {
    for (const v of vectors) {
      const bytes = Buffer.from(v.bodyBase64, 'base64');
      expect(bytes.toString('base64'), v.name).toBe(v.bodyBase64);
      expect(bytes.equals(Buffer.from(v.body, 'utf8')), v.name).toBe(true);
    }
  });

  it('every non-empty body is what a client sends: JSON.stringify output', () => {
    for (const v of vectors.filter((vector) => vector.body !== '')) {
      expect(JSON.stringify(JSON.parse(v.body)), v.name).toBe(v.body);
    }
  });

  it('signatures have the canonical form of their options', () => {
    for (const v of vectors) {
      const bytes = v.algorithm === 'sha256' ? 32 : 64;
      if (v.encoding === 'hex') {
        expect(v.signature, v.name).toMatch(new RegExp(`^[0-9a-f]{${bytes * 2}}$`));
      } else {
        expect(Buffer.from(v.signature, 'base64').toString('base64'), v.name).toBe(v.signature);
        expect(Buffer.from(v.signature, 'base64').length, v.name).toBe(bytes);
      }
    }
  });

  it('covers every algorithm/encoding combination', () => {
    const combos = new Set(vectors.map((v) => `${v.algorithm}/${v.encoding}`));
    expect([...combos].sort()).toEqual([
      'sha256/base64',
      'sha256/hex',
      'sha512/base64',
      'sha512/hex',
    ]);
  });

  it('covers non-ASCII names, {}, an empty body, a GET query and a long secret', () => {
    const bodies = vectors.map((v) => v.body);
    for (const needle of ['Ɔsei', 'Ɛfua', 'Ménsah', '👋🏾', 'ama.mensah@example.com']) {
      expect(
        bodies.some((b) => b.includes(needle)),
        needle,
      ).toBe(true);
    }
    expect(bodies).toContain('{}');
    expect(bodies).toContain('');
    expect(vectors.some((v) => v.name.startsWith('GET query'))).toBe(true);
    expect(vectors.some((v) => Buffer.byteLength(v.secretKey) > 128)).toBe(true);
  });

  it('uses only obviously fake keys', () => {
    for (const v of vectors) {
      expect(v.secretKey).toMatch(/^test_secret_/);
      expect(v.secretKey).not.toMatch(/live|prod/i);
    }
  });

  it('pins the worked example from the README', () => {
    const first = vectors[0];
    expect(first?.signature).toBe(
      '9d18efdf424d1cb217922b9c04b5bad977dd0856d1c3222c6203ca2ad66e7ff6',
    );
  });
});
