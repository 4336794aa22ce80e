/**
 * Both sides of the conditional `@institution-api/signing/signer` entry point: the same
 * published test vectors, the same errors, and the one difference callers rely on (node:crypto
 * answers synchronously, Web Crypto with a Promise).
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import * as nodeSigner from '../src/signer-node.js';
import * as webSigner from '../src/signer-web.js';
import { errorText, LEAK_SECRET, SECRET } from './support/contract.js';
import { bodyBytes, vectors } from './support/vectors.js';

const sides = [
  ['node:crypto', nodeSigner],
  ['web-crypto', webSigner],
] as const;

describe.each(sides)('createSigner (%s)', (runtime, entry) => {
  it('names its runtime', () => {
    expect(entry.SIGNER_RUNTIME).toBe(runtime);
  });

  it.each(vectors.map((v) => [v.name, v] as const))(
    '%s: reproduces the published signature from text and from bytes',
    async (_, v) => {
      const signer = entry.createSigner(v.secretKey, {
        algorithm: v.algorithm,
        encoding: v.encoding,
      });
      expect(await signer(v.body)).toBe(v.signature);
      expect(await signer(bodyBytes(v))).toBe(v.signature);
    },
  );

  it('encodes a lone surrogate as U+FFFD, as TextEncoder does', async () => {
    const signer = entry.createSigner(SECRET);
    expect(await signer('a\ud800b')).toBe(await signer('a\ufffdb'));
  });

  it('uses the UTF-8 bytes of a non-ASCII secret', async () => {
    const secret = 'test_secret_Ɔsei_👋🏾';
    const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update('{}').digest('hex');
    expect(await entry.createSigner(secret)('{}')).toBe(expected);
  });

  it('checks the secret and the options once, at creation', () => {
    expect(() => entry.createSigner('')).toThrow('secretKey must be a non-empty string');
    expect(() => entry.createSigner(SECRET, { algorithm: 'md5' as 'sha256' })).toThrow(RangeError);
    expect(() => entry.createSigner(SECRET, { encoding: 'base64url' as 'hex' })).toThrow(
      RangeError,
    );
  });

  it('refuses a message that is neither a string nor bytes', async () => {
    const signer = entry.createSigner(SECRET);
    for (const message of [undefined, null, 1, {}, new ArrayBuffer(2)]) {
      await expect(async () => signer(message as unknown as string)).rejects.toThrow(TypeError);
    }
  });

  it('never puts the secret into an error', () => {
    for (const options of [{ algorithm: LEAK_SECRET }, { encoding: LEAK_SECRET }, LEAK_SECRET]) {
      try {
        entry.createSigner(LEAK_SECRET, options as never);
        throw new Error('expected a throw');
      } catch (error) {
        expect(errorText(error)).not.toContain(LEAK_SECRET);
      }
    }
  });
});

describe('the difference between the two sides', () => {
  it('node:crypto answers synchronously, Web Crypto with a Promise of the same signature', async () => {
    const text = vectors[1]?.body ?? '';
    const sync = nodeSigner.createSigner(SECRET)(text);
    const async = webSigner.createSigner(SECRET)(text);
    expect(typeof sync).toBe('string');
    expect(async).toBeInstanceOf(Promise);
    expect(await async).toBe(sync);
  });
});
