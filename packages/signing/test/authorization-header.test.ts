import { describe, expect, it } from 'vitest';
import { formatAuthorization, parseAuthorization } from '../src/authorization-header.js';
import { caught, errorText, LEAK_SECRET } from './support/contract.js';

const HEX256 = '9d18efdf424d1cb217922b9c04b5bad977dd0856d1c3222c6203ca2ad66e7ff6';
const HEX512 =
  'ed6753dfa22d0487a92b52204b45d066add97fd10fd21ce245096c8085953eff8ef7213f862e11b9079350f12ed5e6a60b16f5634e458ee22ba8793f2ca2130a';
const B64256 = 'nRjv30JNHLIXkiucBLW62XfdCFbRwyIsYgPKKtZuf/Y=';
const B64512 =
  '7WdT36ItBIepK1IgS0XQZq3Zf9EP0hziRQlsgIWVPv+O9yE/hi4RuQeTUPEu1eamCxb1Y05FjuIrqHk/LKITCg==';

describe('formatAuthorization', () => {
  it('joins public key and signature with a colon', () => {
    expect(formatAuthorization('pk_test_abc', HEX256)).toBe(`pk_test_abc:${HEX256}`);
  });

  it('accepts credentials and ignores the secret', () => {
    const header = formatAuthorization(
      { publicKey: 'pk_test_abc', secretKey: LEAK_SECRET },
      HEX256,
    );
    expect(header).toBe(`pk_test_abc:${HEX256}`);
    expect(header).not.toContain(LEAK_SECRET);
  });

  it('round-trips through parseAuthorization for every encoding', () => {
    expect(parseAuthorization(formatAuthorization('pk', HEX256))).toEqual({
      publicKey: 'pk',
      signature: HEX256,
    });
    expect(
      parseAuthorization(formatAuthorization('pk', B64512), {
        algorithm: 'sha512',
        encoding: 'base64',
      }),
    ).toEqual({ publicKey: 'pk', signature: B64512 });
  });

  it("rejects a public key containing ':'", () => {
    expect(() => formatAuthorization('pk:test', HEX256)).toThrow(TypeError);
    expect(() => formatAuthorization({ publicKey: 'a:b' }, HEX256)).toThrow(/must not contain ':'/);
  });

  it('rejects an empty or non-string public key', () => {
    expect(() => formatAuthorization('', HEX256)).toThrow(TypeError);
    expect(() => formatAuthorization({ publicKey: '' }, HEX256)).toThrow(TypeError);
    expect(() => formatAuthorization(undefined as unknown as string, HEX256)).toThrow(TypeError);
    expect(() => formatAuthorization({} as { publicKey: string }, HEX256)).toThrow(TypeError);
  });

  it('rejects whitespace, control and non-ASCII characters in the public key', () => {
    for (const key of [' pk', 'pk ', 'p k', 'pk\r\nX-Injected: 1', 'pk\t', 'pké']) {
      expect(() => formatAuthorization(key, HEX256)).toThrow(TypeError);
    }
  });

  it('rejects an empty signature or one outside the hex/base64 alphabet', () => {
    expect(() => formatAuthorization('pk', '')).toThrow(TypeError);
    expect(() => formatAuthorization('pk', `${HEX256}\r\n`)).toThrow(TypeError);
    expect(() => formatAuthorization('pk', 'a:b')).toThrow(TypeError);
  });

  it('never echoes the given values in errors', async () => {
    for (const [key, signature] of [
      [`${LEAK_SECRET}:x`, HEX256],
      [` ${LEAK_SECRET}`, HEX256],
      ['pk', `${LEAK_SECRET}!`],
    ] as const) {
      const text = errorText(await caught(() => formatAuthorization(key, signature)));
      expect(text).not.toContain(LEAK_SECRET);
    }
  });
});

describe('parseAuthorization', () => {
  it('parses a valid default (sha256/hex) header', () => {
    expect(parseAuthorization(`pk_test_abc:${HEX256}`)).toEqual({
      publicKey: 'pk_test_abc',
      signature: HEX256,
    });
  });

  it('parses valid headers for every option combination', () => {
    const cases = [
      [HEX256, { algorithm: 'sha256', encoding: 'hex' }],
      [HEX512, { algorithm: 'sha512', encoding: 'hex' }],
      [B64256, { algorithm: 'sha256', encoding: 'base64' }],
      [B64512, { algorithm: 'sha512', encoding: 'base64' }],
    ] as const;
    for (const [signature, options] of cases) {
      expect(parseAuthorization(`pk:${signature}`, options)).toEqual({
        publicKey: 'pk',
        signature,
      });
      // ...and only for its own options
      for (const [, other] of cases) {
        if (other !== options) expect(parseAuthorization(`pk:${signature}`, other)).toBeNull();
      }
    }
  });

  it('returns null for null, undefined and non-strings', () => {
    expect(parseAuthorization(null)).toBeNull();
    expect(parseAuthorization(undefined)).toBeNull();
    expect(parseAuthorization(42 as unknown as string)).toBeNull();
    expect(parseAuthorization(['pk', HEX256] as unknown as string)).toBeNull();
  });

  it('returns null without a colon', () => {
    expect(parseAuthorization(`pk${HEX256}`)).toBeNull();
    expect(parseAuthorization('')).toBeNull();
  });

  it('returns null with two colons', () => {
    expect(parseAuthorization(`pk:x:${HEX256}`)).toBeNull();
    expect(parseAuthorization(`pk:${HEX256}:`)).toBeNull();
    expect(parseAuthorization(`pk::${HEX256}`)).toBeNull();
  });

  it('returns null for an empty public key or an empty signature', () => {
    expect(parseAuthorization(`:${HEX256}`)).toBeNull();
    expect(parseAuthorization('pk:')).toBeNull();
    expect(parseAuthorization(':')).toBeNull();
  });

  it('returns null for a wrong-length signature', () => {
    expect(parseAuthorization(`pk:${HEX256.slice(1)}`)).toBeNull();
    expect(parseAuthorization(`pk:${HEX256}0`)).toBeNull();
    expect(parseAuthorization(`pk:${HEX512}`)).toBeNull();
  });

  it('returns null for uppercase hex and non-canonical base64', () => {
    expect(parseAuthorization(`pk:${HEX256.toUpperCase()}`)).toBeNull();
    const b64 = { encoding: 'base64' } as const;
    expect(parseAuthorization(`pk:${B64256.slice(0, -1)}`, b64)).toBeNull();
    expect(parseAuthorization(`pk:${B64256.replace('/', '_')}`, b64)).toBeNull();
    // 'Z' instead of 'Y' sets an unused low bit: same bytes, non-canonical text.
    expect(parseAuthorization(`pk:${B64256.replace('Y=', 'Z=')}`, b64)).toBeNull();
  });

  it('returns null for surrounding or inner whitespace', () => {
    for (const header of [
      ` pk:${HEX256}`,
      `pk:${HEX256} `,
      `pk :${HEX256}`,
      `pk: ${HEX256}`,
      `\tpk:${HEX256}`,
      `pk:${HEX256}\r\n`,
      `p k:${HEX256}`,
    ]) {
      expect(parseAuthorization(header)).toBeNull();
    }
  });

  it('returns null for a scheme prefix such as "Bearer"', () => {
    expect(parseAuthorization(`HMAC pk:${HEX256}`)).toBeNull();
  });

  it('throws (a configuration error) only for invalid options', () => {
    expect(() => parseAuthorization(`pk:${HEX256}`, { algorithm: 'md5' as 'sha256' })).toThrow(
      RangeError,
    );
  });
});
