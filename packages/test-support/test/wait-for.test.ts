/** The poll of ../src/wait-for.ts: the first value the condition gives, or a clear failure in time. */
import { describe, expect, it } from 'vitest';
import { waitFor } from '../src/wait-for.ts';

describe('waitFor', () => {
  it('resolves with the first value that is neither undefined, null nor false', async () => {
    let calls = 0;
    const answers = [undefined, null, false, 0, 5];
    expect(
      await waitFor(() => answers[calls++], { timeoutMs: 5_000, intervalMs: 1, message: 'x' }),
    ).toBe(0);
    expect(calls).toBe(4);
  });

  it('fails once the deadline has passed, saying what it waited for', async () => {
    const started = performance.now();
    await expect(
      waitFor(async () => false, { timeoutMs: 50, intervalMs: 10, message: () => 'the log line' }),
    ).rejects.toThrow('the log line (not within 50 ms)');
    expect(performance.now() - started).toBeGreaterThanOrEqual(50);
  });

  it('ends at once when the condition throws', async () => {
    await expect(
      waitFor(
        () => {
          throw new Error('refused');
        },
        { timeoutMs: 5_000, message: 'x' },
      ),
    ).rejects.toThrow('refused');
  });
});
