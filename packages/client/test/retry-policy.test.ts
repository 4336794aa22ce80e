import { describe, expect, it } from 'vitest';
import {
  backoffDelay,
  DEFAULT_RETRY,
  delayAfterResponse,
  isRetryableStatus,
  parseRetryAfter,
  resolveRetry,
} from '../src/retry-policy.js';

const policy = { retries: 5, baseDelayMs: 100, maxDelayMs: 1000 };

describe('resolveRetry', () => {
  it('fills defaults, and false means a single attempt', () => {
    expect(resolveRetry(undefined)).toEqual(DEFAULT_RETRY);
    expect(resolveRetry({ retries: 4 })).toEqual({ ...DEFAULT_RETRY, retries: 4 });
    expect(resolveRetry(false).retries).toBe(0);
  });

  it.each([-1, 1.5, Number.POSITIVE_INFINITY])('rejects retries = %s', (retries) => {
    expect(() => resolveRetry({ retries })).toThrow(RangeError);
  });
});

describe('isRetryableStatus', () => {
  it('retries 429 and 5xx only', () => {
    expect([429, 500, 502, 503, 504, 599].every(isRetryableStatus)).toBe(true);
    expect([200, 201, 400, 401, 404, 409, 413, 415, 422, 600].some(isRetryableStatus)).toBe(false);
  });
});

describe('backoffDelay', () => {
  it('is full jitter under an exponential cap bounded by maxDelayMs', () => {
    expect(backoffDelay(0, policy, () => 0.999)).toBe(99);
    expect(backoffDelay(2, policy, () => 0.999)).toBe(399);
    expect(backoffDelay(10, policy, () => 0.999)).toBe(999);
    expect(backoffDelay(3, policy, () => 0)).toBe(0);
    expect(backoffDelay(1, policy, () => 0.5)).toBe(100);
  });

  it('stays within [0, cap) with the real random source', () => {
    for (let i = 0; i < 1000; i++) {
      const delay = backoffDelay(1, policy);
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThan(200);
    }
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-21T10:00:00Z');

  it('reads delay-seconds', () => {
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
  });

  it('reads an HTTP-date, and a past date means now', () => {
    expect(parseRetryAfter('Sat, 21 Nov 2026 10:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('Sat, 21 Nov 2026 09:00:00 GMT', now)).toBe(0);
  });

  it('ignores absent or unreadable values', () => {
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-1', now)).toBeUndefined();
    expect(parseRetryAfter('1.5', now)).toBeUndefined();
  });
});

describe('delayAfterResponse', () => {
  const answer = (headers: Record<string, string>) => new Response(null, { status: 429, headers });

  it('honours Retry-After within maxDelayMs', () => {
    expect(delayAfterResponse(answer({ 'Retry-After': '1' }), 0, policy)).toBe(1000);
  });

  it('gives up when Retry-After asks for longer than maxDelayMs', () => {
    expect(delayAfterResponse(answer({ 'Retry-After': '2' }), 0, policy)).toBeUndefined();
  });

  it('falls back to backoff without Retry-After', () => {
    const delay = delayAfterResponse(answer({}), 0, policy);
    expect(delay).toBeGreaterThanOrEqual(0);
    expect(delay).toBeLessThan(100);
  });
});
