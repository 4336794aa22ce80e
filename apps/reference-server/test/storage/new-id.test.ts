import { describe, expect, it, vi } from 'vitest';
import { newId } from '../../src/storage/new-id.js';

describe('newId', () => {
  it('makes UUID version 7 ids, all different, past several refills of its random pool', () => {
    const ids = Array.from({ length: 2_000 }, newId);
    for (const id of ids) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
    expect(new Set(ids).size).toBe(ids.length);
    // Not the same bytes reused: the random parts (after the time) differ too.
    expect(new Set(ids.map((id) => id.slice(15))).size).toBe(ids.length);
  });

  it('starts with the time, so ids of later milliseconds sort after earlier ones', () => {
    // The clock in the test's hands: the next millisecond comes when the test says.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    try {
      const before = Date.now();
      const first = newId();
      vi.setSystemTime(before + 1);
      const second = newId();
      expect(second > first).toBe(true);
      expect(Number.parseInt(first.replace(/-/g, '').slice(0, 12), 16)).toBe(before);
      expect(Number.parseInt(second.replace(/-/g, '').slice(0, 12), 16)).toBe(before + 1);
    } finally {
      vi.useRealTimers();
    }
  });
});
