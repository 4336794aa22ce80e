import { describe, expect, it } from 'vitest';
import {
  assertSecretKey,
  DEFAULT_SIGNATURE_OPTIONS,
  DIGEST_BYTES,
  resolveOptions,
} from '../src/algorithms.js';
import { errorText, LEAK_SECRET } from './support/contract.js';

describe('DEFAULT_SIGNATURE_OPTIONS', () => {
  it("is SHA-256 in hex, the spec's default", () => {
    expect(DEFAULT_SIGNATURE_OPTIONS).toEqual({ algorithm: 'sha256', encoding: 'hex' });
  });

  it('is frozen so no caller can change everyone else’s default', () => {
    expect(Object.isFrozen(DEFAULT_SIGNATURE_OPTIONS)).toBe(true);
  });
});

describe('resolveOptions', () => {
  it('fills in defaults field by field', () => {
    expect(resolveOptions()).toEqual({ algorithm: 'sha256', encoding: 'hex' });
    expect(resolveOptions({})).toEqual({ algorithm: 'sha256', encoding: 'hex' });
    expect(resolveOptions({ algorithm: 'sha512' })).toEqual({
      algorithm: 'sha512',
      encoding: 'hex',
    });
    expect(resolveOptions({ encoding: 'base64' })).toEqual({
      algorithm: 'sha256',
      encoding: 'base64',
    });
  });

  it('rejects unknown values (options usually come from untyped configuration)', () => {
    expect(() => resolveOptions({ algorithm: 'sha1' as 'sha256' })).toThrow(RangeError);
    expect(() => resolveOptions({ algorithm: 'SHA-256' as 'sha256' })).toThrow(RangeError);
    expect(() => resolveOptions({ encoding: 'HEX' as 'hex' })).toThrow(RangeError);
    expect(() => resolveOptions(null as unknown as undefined)).toThrow(TypeError);
    expect(() => resolveOptions('sha512' as unknown as undefined)).toThrow(TypeError);
  });

  it('does not echo the rejected value', () => {
    let error: unknown;
    try {
      resolveOptions({ algorithm: LEAK_SECRET as 'sha256' });
    } catch (e) {
      error = e;
    }
    expect(errorText(error)).not.toContain(LEAK_SECRET);
  });
});

describe('DIGEST_BYTES', () => {
  it('matches the hash output sizes', () => {
    expect(DIGEST_BYTES).toEqual({ sha256: 32, sha512: 64 });
  });
});

describe('assertSecretKey', () => {
  it('accepts non-empty strings only', () => {
    expect(() => assertSecretKey('x')).not.toThrow();
    expect(() => assertSecretKey('')).toThrow(TypeError);
    expect(() => assertSecretKey(undefined)).toThrow(TypeError);
  });
});
