import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createProgress, formatDuration } from '../../src/import/progress.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('progress', () => {
  it('off a terminal, writes one plain line every 5 s: rows of the total, rows/s, ETA, why it waits', () => {
    const lines: string[] = [];
    let now = 0;
    const progress = createProgress({
      total: 10_000,
      tty: undefined,
      write: (text) => lines.push(text),
      now: () => now,
    });
    now = 4000;
    progress.update({ done: 2500, doneThisRun: 2000 });
    vi.advanceTimersByTime(4999);
    expect(lines).toEqual([]);
    now = 5000;
    vi.advanceTimersByTime(1);
    expect(lines).toEqual(['import: 2,500 of 10,000 rows (25%), 400 rows/s, ETA 19 s\n']);
    now = 10_000;
    progress.update({
      done: 4500,
      doneThisRun: 4000,
      note: 'paused 37 s: the service answered 429',
      pausedMs: 37_000, // the wait is part of the time left
    });
    vi.advanceTimersByTime(5000);
    expect(lines[1]).toBe(
      'import: 4,500 of 10,000 rows (45%), 400 rows/s, ETA 51 s; paused 37 s: the service answered 429\n',
    );
    progress.stop();
    vi.advanceTimersByTime(60_000);
    expect(lines).toHaveLength(2);
  });

  it('on a terminal, draws a bar there (stderr), never on stdout', () => {
    let drawn = '';
    const tty = new Writable({
      write(chunk, _encoding, done) {
        drawn += String(chunk);
        done();
      },
    }) as Writable & { isTTY: boolean; columns: number };
    tty.isTTY = true;
    tty.columns = 120;
    const write = vi.fn();
    const progress = createProgress({ total: 200, tty, write });
    progress.update({ done: 50, doneThisRun: 50 });
    vi.advanceTimersByTime(1000);
    progress.stop();
    expect(drawn).toMatch(/import \|.*\| 25% \| 50\/200 rows \| \d+ rows\/s \| ETA/);
    expect(write).not.toHaveBeenCalled();
  });

  it('formats durations', () => {
    expect(formatDuration(3.25)).toBe('3.3 s');
    expect(formatDuration(42)).toBe('42 s');
    expect(formatDuration(187)).toBe('3 min 07 s');
    expect(formatDuration(3720)).toBe('1 h 02 min');
  });
});
