/**
 * Behaviour both implementations (Web Crypto and node:crypto) must share. Each entry point's
 * test file runs this suite against its own functions, so they cannot drift apart.
 */
import { describe, expect, it } from 'vitest';
import type { SignatureOptions } from '../../src/index.js';
import { bodyBytes, vectors } from './vectors.js';

export interface Implementation {
  sign(
    message: string | Uint8Array,
    secretKey: string,
    options?: SignatureOptions,
  ): Promise<string>;
  signBody(
    body: unknown,
    secretKey: string,
    options?: SignatureOptions,
  ): Promise<{ text: string; signature: string }>;
  signQuery(
    query: Record<string, unknown>,
    secretKey: string,
    options?: SignatureOptions,
  ): Promise<{ text: string; signature: string }>;
  verify(
    message: string | Uint8Array,
    signature: string,
    secretKey: string,
    options?: SignatureOptions,
  ): Promise<boolean>;
}

export const SECRET = 'test_secret_0123456789abcdef';
export const OTHER_SECRET = 'test_secret_fedcba9876543210_other';
/** Marker secret for the leak tests; distinctive so a substring search cannot miss it. */
export const LEAK_SECRET = 'test_secret_MUST_NOT_LEAK_7f3a9c';

const USER = { email: 'ama.mensah@example.com', firstName: 'Ama', lastName: 'Mensah' };

/** Flips one character to another of the same alphabet, keeping the signature well-formed. */
export function changeOneChar(signature: string, index = 0): string {
  const c = signature.charAt(index);
  const replacement = c === '0' ? '1' : '0';
  return signature.slice(0, index) + replacement + signature.slice(index + 1);
}

/** Everything an error could leak through: message, stack, cause, own properties. */
export function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const own = Object.fromEntries(
    Object.getOwnPropertyNames(error).map((name) => [
      name,
      String((error as unknown as Record<string, unknown>)[name]),
    ]),
  );
  return [String(error), error.stack ?? '', String(error.cause ?? ''), JSON.stringify(own)].join(
    '\n',
  );
}

export async function caught(action: () => unknown): Promise<unknown> {
  try {
    await action();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw');
}

export function signingContract(name: string, impl: Implementation): void {
  describe(`${name}: published test vectors`, () => {
    it.each(vectors.map((v) => [v.name, v] as const))('%s: sign (text)', async (_, v) => {
      const options = { algorithm: v.algorithm, encoding: v.encoding };
      expect(await impl.sign(v.body, v.secretKey, options)).toBe(v.signature);
    });

    it.each(vectors.map((v) => [v.name, v] as const))('%s: sign (bytes)', async (_, v) => {
      const options = { algorithm: v.algorithm, encoding: v.encoding };
      expect(await impl.sign(bodyBytes(v), v.secretKey, options)).toBe(v.signature);
    });

    it.each(vectors.map((v) => [v.name, v] as const))('%s: verify', async (_, v) => {
      const options = { algorithm: v.algorithm, encoding: v.encoding };
      expect(await impl.verify(v.body, v.signature, v.secretKey, options)).toBe(true);
      expect(await impl.verify(bodyBytes(v), v.signature, v.secretKey, options)).toBe(true);
    });

    it.each(vectors.filter((v) => v.body !== '').map((v) => [v.name, v] as const))(
      '%s: signBody of the parsed body reproduces text and signature',
      async (_, v) => {
        const options = { algorithm: v.algorithm, encoding: v.encoding };
        const signed = await impl.signBody(JSON.parse(v.body), v.secretKey, options);
        expect(signed).toEqual({ text: v.body, signature: v.signature });
      },
    );

    it('the GET query vector is reproduced by signQuery', async () => {
      const v = vectors.find((vector) => vector.name.startsWith('GET query'));
      expect(v).toBeDefined();
      if (v === undefined) return;
      const signed = await impl.signQuery(JSON.parse(v.body), v.secretKey, {
        algorithm: v.algorithm,
        encoding: v.encoding,
      });
      expect(signed).toEqual({ text: v.body, signature: v.signature });
    });
  });

  describe(`${name}: verify rejects`, () => {
    const hex256 = vectors.find((v) => v.algorithm === 'sha256' && v.encoding === 'hex');
    const hex512 = vectors.find((v) => v.algorithm === 'sha512' && v.encoding === 'hex');
    const b64256 = vectors.find((v) => v.algorithm === 'sha256' && v.encoding === 'base64');
    const b64512 = vectors.find((v) => v.algorithm === 'sha512' && v.encoding === 'base64');
    if (!hex256 || !hex512 || !b64256 || !b64512)
      throw new Error('vector file lacks a combination');
    const all = [hex256, hex512, b64256, b64512];
    const opts = (v: typeof hex256) => ({ algorithm: v.algorithm, encoding: v.encoding });

    it.each(all.map((v) => [v.name, v] as const))(
      '%s: a one-character change anywhere in the signature',
      async (_, v) => {
        const dataLength = v.signature.replace(/=+$/, '').length;
        // first, middle and last significant character
        for (const index of [0, Math.floor(dataLength / 2), dataLength - 2]) {
          const tampered = changeOneChar(v.signature, index);
          expect(tampered).not.toBe(v.signature);
          expect(await impl.verify(v.body, tampered, v.secretKey, opts(v))).toBe(false);
        }
      },
    );

    it.each(all.map((v) => [v.name, v] as const))('%s: wrong length', async (_, v) => {
      const o = opts(v);
      expect(await impl.verify(v.body, v.signature.slice(0, -2), v.secretKey, o)).toBe(false);
      expect(await impl.verify(v.body, `${v.signature}00`, v.secretKey, o)).toBe(false);
      expect(await impl.verify(v.body, '', v.secretKey, o)).toBe(false);
    });

    it('a sha512 signature when sha256 is configured, and vice versa', async () => {
      expect(await impl.verify(hex512.body, hex512.signature, hex512.secretKey)).toBe(false);
      expect(
        await impl.verify(hex256.body, hex256.signature, hex256.secretKey, { algorithm: 'sha512' }),
      ).toBe(false);
    });

    it('a base64 signature when hex is configured, and vice versa', async () => {
      expect(await impl.verify(b64256.body, b64256.signature, b64256.secretKey)).toBe(false);
      expect(
        await impl.verify(hex256.body, hex256.signature, hex256.secretKey, { encoding: 'base64' }),
      ).toBe(false);
    });

    it('uppercase hex (strict: the scheme says lowercase hex)', async () => {
      const upper = hex256.signature.toUpperCase();
      expect(upper).not.toBe(hex256.signature);
      expect(await impl.verify(hex256.body, upper, hex256.secretKey)).toBe(false);
      const oneUpper = hex256.signature.replace(/[a-f]/, (c) => c.toUpperCase());
      expect(await impl.verify(hex256.body, oneUpper, hex256.secretKey)).toBe(false);
    });

    it('non-canonical base64: missing padding, URL-safe alphabet, stray bits, whitespace', async () => {
      for (const v of [b64256, b64512]) {
        const o = opts(v);
        const s = v.signature;
        expect(await impl.verify(v.body, s.replace(/=+$/, ''), v.secretKey, o)).toBe(false);
        expect(await impl.verify(v.body, `${s}=`, v.secretKey, o)).toBe(false);
        expect(await impl.verify(v.body, ` ${s}`, v.secretKey, o)).toBe(false);
        expect(await impl.verify(v.body, `${s}\n`, v.secretKey, o)).toBe(false);
        const urlSafe = s.replace(/\+/g, '-').replace(/\//g, '_');
        if (urlSafe !== s) {
          expect(await impl.verify(v.body, urlSafe, v.secretKey, o)).toBe(false);
        }
        // Same bytes, different text: set an unused low bit of the last data character.
        const data = s.replace(/=+$/, '');
        const padding = s.slice(data.length);
        const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
        const last = alphabet.indexOf(data.charAt(data.length - 1));
        const stray = `${data.slice(0, -1)}${alphabet.charAt(last | 1)}${padding}`;
        expect(stray).not.toBe(s);
        expect(Buffer.from(stray, 'base64').equals(Buffer.from(s, 'base64'))).toBe(true);
        expect(await impl.verify(v.body, stray, v.secretKey, o)).toBe(false);
      }
    });

    it('non-hex characters of the right length', async () => {
      const bad = `${hex256.signature.slice(0, -1)}g`;
      expect(await impl.verify(hex256.body, bad, hex256.secretKey)).toBe(false);
    });

    it('a different secret', async () => {
      for (const v of all) {
        expect(await impl.verify(v.body, v.signature, OTHER_SECRET, opts(v))).toBe(false);
      }
    });

    it('a changed byte of the body', async () => {
      for (const v of all) {
        const bytes = bodyBytes(v);
        bytes[bytes.length - 2] = (bytes[bytes.length - 2] ?? 0) ^ 1;
        expect(await impl.verify(bytes, v.signature, v.secretKey, opts(v))).toBe(false);
        const text = v.body.replace(/[a-z]/, (letter) => letter.toUpperCase());
        expect(text).not.toBe(v.body);
        expect(await impl.verify(text, v.signature, v.secretKey, opts(v))).toBe(false);
      }
    });

    it('non-string signatures, without throwing', async () => {
      for (const signature of [undefined, null, 42, {}, ['a']]) {
        expect(await impl.verify(hex256.body, signature as unknown as string, SECRET)).toBe(false);
      }
    });
  });

  describe(`${name}: signBody and signQuery`, () => {
    it('signBody returns exactly JSON.stringify(body) and a signature that verifies over it', async () => {
      const { text, signature } = await impl.signBody(USER, SECRET);
      expect(text).toBe(JSON.stringify(USER));
      expect(signature).toMatch(/^[0-9a-f]{64}$/);
      expect(await impl.verify(text, signature, SECRET)).toBe(true);
      expect(await impl.verify(new TextEncoder().encode(text), signature, SECRET)).toBe(true);
    });

    it('the same body re-serialized with spaces does not verify', async () => {
      const { text, signature } = await impl.signBody(USER, SECRET);
      const pretty = JSON.stringify(USER, null, 2);
      const spaced = JSON.stringify(JSON.parse(text), null, 1).replace(/\n\s*/g, ' ');
      expect(JSON.parse(pretty)).toEqual(JSON.parse(text));
      expect(await impl.verify(pretty, signature, SECRET)).toBe(false);
      expect(await impl.verify(spaced, signature, SECRET)).toBe(false);
    });

    it('key order is part of the signed text', async () => {
      const a = await impl.signBody({ a: 1, b: 2 }, SECRET);
      const b = await impl.signBody({ b: 2, a: 1 }, SECRET);
      expect(a.signature).not.toBe(b.signature);
    });

    it('signBody honours the options', async () => {
      const { text, signature } = await impl.signBody(USER, SECRET, {
        algorithm: 'sha512',
        encoding: 'base64',
      });
      expect(signature).toMatch(/^[A-Za-z0-9+/]{86}==$/);
      expect(
        await impl.verify(text, signature, SECRET, { algorithm: 'sha512', encoding: 'base64' }),
      ).toBe(true);
    });

    it('signBody signs JSON primitives and arrays as their JSON text', async () => {
      for (const body of [null, 0, 'text', [1, 2], true]) {
        const { text, signature } = await impl.signBody(body, SECRET);
        expect(text).toBe(JSON.stringify(body));
        expect(await impl.verify(text, signature, SECRET)).toBe(true);
      }
    });

    it('signBody refuses values JSON.stringify turns into undefined', async () => {
      for (const body of [undefined, () => 1, Symbol('x')]) {
        await expect(impl.signBody(body, SECRET)).rejects.toThrow(TypeError);
      }
    });

    it('signQuery signs JSON.stringify(query) and refuses non-objects', async () => {
      const query = { email: 'ama.mensah@example.com', page: '1' };
      const { text, signature } = await impl.signQuery(query, SECRET);
      expect(text).toBe(JSON.stringify(query));
      expect(await impl.verify(text, signature, SECRET)).toBe(true);
      for (const bad of [null, [], 'page=1', 1]) {
        await expect(
          impl.signQuery(bad as unknown as Record<string, unknown>, SECRET),
        ).rejects.toThrow(TypeError);
      }
    });

    it('lone surrogates are encoded as U+FFFD like TextEncoder does', async () => {
      const lone = 'a\ud800b';
      const replaced = 'a\ufffdb';
      expect(await impl.sign(lone, SECRET)).toBe(await impl.sign(replaced, SECRET));
    });
  });

  describe(`${name}: errors`, () => {
    it('rejects an empty or non-string secret', async () => {
      for (const secret of ['', undefined, null, 42, new Uint8Array([1])]) {
        await expect(impl.sign('{}', secret as unknown as string)).rejects.toThrow(
          'secretKey must be a non-empty string',
        );
        await expect(impl.verify('{}', '00', secret as unknown as string)).rejects.toThrow(
          'secretKey must be a non-empty string',
        );
      }
    });

    it('rejects unknown options', async () => {
      await expect(impl.sign('{}', SECRET, { algorithm: 'md5' as 'sha256' })).rejects.toThrow(
        RangeError,
      );
      await expect(impl.sign('{}', SECRET, { encoding: 'base64url' as 'hex' })).rejects.toThrow(
        RangeError,
      );
      await expect(
        impl.verify('{}', '00', SECRET, { algorithm: 'SHA256' as 'sha256' }),
      ).rejects.toThrow(RangeError);
    });

    it('rejects a message that is neither string nor bytes', async () => {
      for (const message of [undefined, null, 1, {}, new ArrayBuffer(2)]) {
        await expect(impl.sign(message as unknown as string, SECRET)).rejects.toThrow(TypeError);
      }
    });

    it('never puts the secret or the expected signature into an error', async () => {
      const expected = await impl.sign('{}', LEAK_SECRET);
      const circular: Record<string, unknown> = {};
      circular.self = circular;
      const failures: Array<() => unknown> = [
        () => impl.sign('{}', LEAK_SECRET, { algorithm: LEAK_SECRET as 'sha256' }),
        () => impl.sign('{}', LEAK_SECRET, { encoding: LEAK_SECRET as 'hex' }),
        () => impl.sign('{}', LEAK_SECRET, LEAK_SECRET as unknown as SignatureOptions),
        () => impl.sign({ LEAK_SECRET } as unknown as string, LEAK_SECRET),
        () => impl.sign('{}', [LEAK_SECRET] as unknown as string),
        () => impl.verify('{}', expected, LEAK_SECRET, { algorithm: 'sha1' as 'sha256' }),
        () => impl.verify(undefined as unknown as string, expected, LEAK_SECRET),
        () => impl.signBody(undefined, LEAK_SECRET),
        () => impl.signBody(circular, LEAK_SECRET),
        () => impl.signBody(10n, LEAK_SECRET),
        () => impl.signQuery(LEAK_SECRET as unknown as Record<string, unknown>, LEAK_SECRET),
      ];
      for (const failure of failures) {
        const error = await caught(failure);
        expect(error).toBeInstanceOf(Error);
        const text = errorText(error);
        expect(text).not.toContain(LEAK_SECRET);
        expect(text).not.toContain(expected);
      }
    });
  });
}
