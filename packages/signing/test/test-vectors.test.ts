/**
 * Checks the published file itself. Its signatures were generated once with
 * `openssl dgst -<algorithm> -hmac <secretKey>`; here every one is recomputed independently of
 * the code under test (bare `node:crypto` here, and the `openssl` command line in
 * test-vectors.system.test.ts), so a wrong literal cannot hide behind a matching bug in the
 * package. The sign/verify checks of the package's
 * implementations live in the contract suite (test/support/contract.ts) run by
 * web-crypto.test.ts, node.test.ts and signer.test.ts.
 */
import { createHash, createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  bodyBytes,
  type MessageSignatureVector,
  messageSignatureVectors,
  vectorFile,
  vectors,
} from './support/vectors.js';

/** The request fields of the spec's `UserInput`: every vector body uses these and no others. */
const USER_INPUT_FIELDS = new Set([
  'email',
  'firstName',
  'lastName',
  'mobileNumber',
  'ghanaCardNumber',
  'monthlyIncome',
  'otherName',
  'gender',
  'dateOfBirth',
  'accountType',
  'accountNumber',
  'network',
  'bankName',
  'accountName',
  'isGhanaCardVerified',
  'image',
  'ghanaCardImage',
  'kyc',
]);
const KYC_FIELDS = new Set(['occupation', 'address', 'validFrom', 'validTo', 'refNumber']);

const readme = new URL('../README.md', import.meta.url);
/** The spec's "Signing requests" section (owned by the spec, not by this package). */
const specDescription = new URL('../../../openapi/info-description.md', import.meta.url);

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
    for (const needle of ['Ɔsei', 'Ɛfua', 'Ménsah', '👋🏾', '"accountType":"MOMO"']) {
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
      expect(v.secretKey).toMatch(/^(test_secret_|demo-secret-key-)/);
      expect(v.secretKey).not.toMatch(/live|prod/i);
    }
  });

  it('bodies are made of fields of UserInput, the GET query of its filters', () => {
    for (const v of vectors.filter((vector) => vector.body !== '')) {
      const body = JSON.parse(v.body) as Record<string, unknown>;
      for (const key of Object.keys(body)) {
        expect(USER_INPUT_FIELDS.has(key), `${v.name}: ${key}`).toBe(true);
      }
      for (const key of Object.keys((body.kyc ?? {}) as object)) {
        expect(KYC_FIELDS.has(key), `${v.name}: kyc.${key}`).toBe(true);
      }
    }
  });

  it.each(vectors.map((v) => [v.name, v] as const))(
    '%s: recomputed with bare node:crypto',
    (_, v) => {
      const mac = createHmac(v.algorithm, Buffer.from(v.secretKey, 'utf8')).update(bodyBytes(v));
      expect(mac.digest(v.encoding)).toBe(v.signature);
    },
  );

  it("the first vector is the spec's worked example, with the same body, key and signature", () => {
    const first = vectors[0];
    expect(first?.name).toMatch(/worked example/);
    const spec = readFileSync(specDescription, 'utf8');
    expect(spec).toContain(first?.body);
    expect(spec).toContain(`'${first?.secretKey}'`);
    expect(spec).toContain(first?.signature);
  });

  it("the README's worked example shows the first vector, in hex and in base64", () => {
    const first = vectors[0];
    const text = readFileSync(readme, 'utf8');
    expect(text).toContain(first?.body);
    expect(text).toContain(`'${first?.secretKey}'`);
    expect(text).toContain(`SHA2-256(stdin)= ${first?.signature}`);
    const mac = Buffer.from(first?.signature ?? '', 'hex');
    expect(text).toContain(`\`${mac.toString('base64')}\``);
  });
});

describe('test-vectors.json: message signatures', () => {
  const keyOf = (v: MessageSignatureVector) =>
    v.secretKeyBase64 === undefined
      ? Buffer.from(v.secretKey ?? '', 'utf8')
      : Buffer.from(v.secretKeyBase64, 'base64');

  it("starts with RFC 9421's own hmac-sha256 example, then ours", () => {
    expect(messageSignatureVectors[0]?.signature).toBe(
      'sig-b25=:pxcQw6G3AjtMBQjwo8XzkZf/bws5LelbaMk5rGIGtE8=:',
    );
    expect(messageSignatureVectors.length).toBeGreaterThanOrEqual(4);
    for (const v of messageSignatureVectors.slice(1)) {
      expect(v.secretKey, v.name).toMatch(/^(test_secret_|demo-secret-key-)/);
      expect(v.signatureInput, v.name).toMatch(
        /=\("@method" "@path" "content-digest"\);created=\d+;(expires=\d+;)?nonce="[^"]+";keyid="[^"]+";alg="hmac-sha256"$/,
      );
    }
  });

  it.each(messageSignatureVectors.map((v) => [v.name, v] as const))(
    '%s: Content-Digest and signature recomputed with bare node:crypto',
    (_, v) => {
      const body = Buffer.from(v.bodyBase64, 'base64');
      expect(body.equals(Buffer.from(v.body, 'utf8'))).toBe(true);
      const [, algorithm, digest] = /^(sha-256|sha-512)=:(.+):$/.exec(v.contentDigest) ?? [];
      expect(
        createHash((algorithm ?? '').replace('-', ''))
          .update(body)
          .digest('base64'),
      ).toBe(digest);
      const label = v.signatureInput.slice(0, v.signatureInput.indexOf('='));
      expect(
        v.signatureBase.endsWith(
          `"@signature-params": ${v.signatureInput.slice(label.length + 1)}`,
        ),
      ).toBe(true);
      const mac = createHmac('sha256', keyOf(v)).update(v.signatureBase).digest('base64');
      expect(v.signature).toBe(`${label}=:${mac}:`);
    },
  );
});
