/**
 * The budget of a diagnosis (src/diagnosis-budget.ts): candidates are taken until a bound is
 * reached, which then stays reached and is told in words.
 */
import { describe, expect, it } from 'vitest';
import { DiagnosisSpending, defaultDiagnosisBudget } from '../src/diagnosis-budget.js';

describe('DiagnosisSpending', () => {
  it.each([
    [
      'candidates',
      { maxCandidates: 2 },
      [10, 10, 10],
      [true, true, false],
      'it tried 2 candidates',
    ],
    [
      'bytes',
      { maxBytes: 2048 },
      [1024, 1024, 1],
      [true, true, false],
      'it wrote and hashed 2 KiB of candidates',
    ],
    ['neither', {}, [1024, 1024], [true, true], 'it tried every known mistake'],
  ] as const)('stops at the bound of %s', (_, budget, sizes, want, words) => {
    const spending = new DiagnosisSpending(budget);
    expect(sizes.map((bytes) => spending.take(bytes))).toEqual(want);
    expect(spending.words()).toBe(words);
  });

  it('stays spent: once a bound is reached, nothing more is taken, however small', () => {
    const spending = new DiagnosisSpending({ maxBytes: 100 });
    expect(spending.take(101)).toBe(false);
    expect(spending.take(1)).toBe(false);
    expect(spending.limit).toBe('bytes');
    expect(spending.bytesLeft).toBe(0);
  });

  it('stops at the time bound, on its clock', () => {
    let now = 0;
    const spending = new DiagnosisSpending({ maxMilliseconds: 50 }, () => now);
    expect(spending.take(1)).toBe(true);
    now = 51;
    expect(spending.take(1)).toBe(false);
    expect(spending.words()).toBe('it took 50 ms');
  });

  it('keeps the first bound reached', () => {
    const spending = new DiagnosisSpending();
    spending.stop('depth');
    spending.stop('bytes');
    expect(spending.words()).toBe(
      `the body is nested deeper than ${defaultDiagnosisBudget.maxDepth} levels`,
    );
  });
});
