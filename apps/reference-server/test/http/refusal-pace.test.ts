/**
 * The pace of one key's refusals (src/http/refusal-pace.ts): a burst answered at once, then so
 * many a second, smoothly; a slowed refusal takes nothing from the bucket; every key its own.
 */
import { describe, expect, test } from 'vitest';
import { refusalPace } from '../../src/http/refusal-pace.js';

describe('refusalPace', () => {
  test.each<[string, [key: string, atMs: number][], boolean[]]>([
    [
      'a burst of 3 at once, then slowed',
      [
        ['a', 0],
        ['a', 0],
        ['a', 0],
        ['a', 0],
        ['a', 0],
      ],
      [false, false, false, true, true],
    ],
    [
      'past the burst, 2 a second: one every half second',
      [
        ['a', 0],
        ['a', 0],
        ['a', 0],
        ['a', 100],
        ['a', 500],
        ['a', 600],
        ['a', 1000],
      ],
      [false, false, false, true, false, true, false],
    ],
    [
      'every key its own bucket',
      [
        ['a', 0],
        ['a', 0],
        ['a', 0],
        ['b', 0],
        ['a', 0],
      ],
      [false, false, false, false, true],
    ],
    [
      'a bucket refills to its burst, no more',
      [
        ['a', 0],
        ['a', 60_000],
        ['a', 60_000],
        ['a', 60_000],
        ['a', 60_000],
      ],
      [false, false, false, false, true],
    ],
  ])('%s', (_, refusals, want) => {
    let now = 0;
    const tooFast = refusalPace({ burst: 3, perSecond: 2 }, () => now);
    expect(
      refusals.map(([key, at]) => {
        now = at;
        return tooFast(key);
      }),
    ).toEqual(want);
  });
});
