import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { SignatureOptions } from '../src/algorithms.js';
import {
  bytesToBase64,
  bytesToHex,
  decodeSignature,
  isWellFormedSignature,
  messageBytes,
  signaturePattern,
} from '../src/encoding.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const combos: Required<SignatureOptions>[] = [
  { algorithm: 'sha256', encoding: 'hex' },
  { algorithm: 'sha512', encoding: 'hex' },
  { algorithm: 'sha256', encoding: 'base64' },
  { algorithm: 'sha512', encoding: 'base64' },
];

describe('messageBytes', () => {
  it('encodes strings as UTF-8', () => {
    expect(Buffer.from(messageBytes('Ɔsei Ɛfua Ménsah 👋🏾')).toString('hex')).toBe(
      Buffer.from('Ɔsei Ɛfua Ménsah 👋🏾', 'utf8').toString('hex'),
    );
  });

  it('passes ArrayBuffer-backed bytes through and copies shared ones', () => {
    const bytes = new Uint8Array([1, 2, 3]);
    expect(messageBytes(bytes)).toBe(bytes);
    const shared = new Uint8Array(new SharedArrayBuffer(3));
    shared.set([4, 5, 6]);
    const copy = messageBytes(shared);
    expect(copy.buffer).toBeInstanceOf(ArrayBuffer);
    expect([...copy]).toEqual([4, 5, 6]);
  });

  it('rejects anything else', () => {
    for (const value of [undefined, null, 1, {}, new ArrayBuffer(1), new Uint16Array(1)]) {
      expect(() => messageBytes(value as unknown as string)).toThrow(TypeError);
    }
  });
});

describe('bytesToHex / bytesToBase64', () => {
  it('match Buffer for every length 0..100', () => {
    for (let n = 0; n <= 100; n++) {
      const bytes = new Uint8Array(randomBytes(n));
      expect(bytesToHex(bytes)).toBe(Buffer.from(bytes).toString('hex'));
      expect(bytesToBase64(bytes)).toBe(Buffer.from(bytes).toString('base64'));
    }
  });

  it('cover every byte value', () => {
    const all = new Uint8Array(256).map((_, i) => i);
    expect(bytesToHex(all)).toBe(Buffer.from(all).toString('hex'));
    expect(bytesToBase64(all)).toBe(Buffer.from(all).toString('base64'));
  });
});

describe('signaturePattern / decodeSignature', () => {
  it('accepts exactly the canonical text of random MACs and decodes it back', () => {
    for (const options of combos) {
      const size = options.algorithm === 'sha256' ? 32 : 64;
      for (let i = 0; i < 200; i++) {
        const mac = randomBytes(size);
        const text = mac.toString(options.encoding);
        expect(isWellFormedSignature(text, options)).toBe(true);
        expect(Buffer.from(decodeSignature(text, options) ?? []).equals(mac)).toBe(true);
      }
    }
  });

  it('accepts a last base64 character only if it leaves no stray bits', () => {
    for (const options of combos.filter((o) => o.encoding === 'base64')) {
      const size = options.algorithm === 'sha256' ? 32 : 64;
      const canonical = randomBytes(size).toString('base64');
      const data = canonical.replace(/=+$/, '');
      const padding = canonical.slice(data.length);
      for (const last of ALPHABET) {
        const candidate = `${data.slice(0, -1)}${last}${padding}`;
        // canonical iff Buffer's decode-then-encode round-trips it unchanged
        const isCanonical = Buffer.from(candidate, 'base64').toString('base64') === candidate;
        expect(isWellFormedSignature(candidate, options)).toBe(isCanonical);
      }
    }
  });

  it('rejects uppercase hex, wrong lengths, whitespace and foreign alphabets', () => {
    const hex = { algorithm: 'sha256', encoding: 'hex' } as const;
    const b64 = { algorithm: 'sha256', encoding: 'base64' } as const;
    const h = randomBytes(32).toString('hex');
    const b = randomBytes(32).toString('base64');
    for (const bad of [
      h.toUpperCase(),
      h.slice(2),
      `${h}00`,
      ` ${h}`,
      `${h}\n`,
      `0x${h.slice(2)}`,
    ]) {
      if (bad !== h) expect(decodeSignature(bad, hex)).toBeNull();
    }
    for (const bad of [b.slice(0, -1), `${b}=`, ` ${b}`, `${b}\n`, b.replace(/=$/, '.')]) {
      expect(decodeSignature(bad, b64)).toBeNull();
    }
    expect(decodeSignature(`${'-'.repeat(43)}=`, b64)).toBeNull();
    expect(decodeSignature(`${'_'.repeat(43)}=`, b64)).toBeNull();
  });

  it('never throws on non-strings', () => {
    for (const options of combos) {
      for (const value of [undefined, null, 1, {}, [], Symbol('s')]) {
        expect(decodeSignature(value, options)).toBeNull();
      }
    }
  });

  it('builds the documented patterns', () => {
    expect(signaturePattern({ algorithm: 'sha256', encoding: 'hex' }).source).toBe(
      '^[0-9a-f]{64}$',
    );
    expect(signaturePattern({ algorithm: 'sha512', encoding: 'hex' }).source).toBe(
      '^[0-9a-f]{128}$',
    );
    expect(signaturePattern({ algorithm: 'sha256', encoding: 'base64' }).source).toBe(
      '^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$',
    );
    expect(signaturePattern({ algorithm: 'sha512', encoding: 'base64' }).source).toBe(
      '^[A-Za-z0-9+/]{85}[AQgw]==$',
    );
  });
});
