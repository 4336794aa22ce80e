/**
 * The one wait of the tests: a poll for a condition with a deadline, instead of a fixed sleep that
 * is too long on a quiet machine and too short on a loaded one.
 */

/** Options of {@link waitFor}. */
export interface WaitOptions {
  /** How long the condition may take before the wait fails. */
  timeoutMs: number;
  /** How long between two looks; 100 ms by default. */
  intervalMs?: number;
  /** What was waited for, in the error of a wait that ran out of time. */
  message: string | (() => string);
}

/**
 * Calls `condition` every `intervalMs` until it returns something other than `undefined`, `null`
 * or `false`, and resolves with that; rejects once `timeoutMs` has passed without it, saying
 * `message`. An error thrown by `condition` ends the wait at once.
 */
export async function waitFor<T>(
  condition: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  options: WaitOptions,
): Promise<T> {
  const { timeoutMs, intervalMs = 100, message } = options;
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value !== undefined && value !== null && value !== false) return value;
    if (performance.now() >= deadline) {
      const what = typeof message === 'function' ? message() : message;
      throw new Error(`${what} (not within ${timeoutMs} ms)`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
