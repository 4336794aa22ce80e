/**
 * When and how long to wait before sending a request again. Pure functions, so the policy can
 * be tested without a clock or a server.
 *
 * Both operations are safe to repeat (see the README, "Timeouts and retries"): create is
 * recognized by the normalized Ghana Card number (decision "existing user recognition") and
 * update replaces the details by id, and every request is one transaction, so a `500` wrote
 * nothing (spec: `InternalServerError`).
 *
 * @module
 */

/** Tuning of the retries; every field is optional. */
export interface RetryOptions {
  /** Retries after the first attempt (so `2` means at most 3 attempts). Default 2. */
  retries?: number;
  /** Scale of the exponential backoff: attempt n waits up to `baseDelayMs * 2^n`. Default 250. */
  baseDelayMs?: number;
  /**
   * Longest wait between attempts, for backoff and for `Retry-After` alike. A `Retry-After`
   * longer than this is not waited for: the `429`/`503` is returned so the caller can decide
   * (the service asked for more patience than this client was configured to have). Default 5000.
   */
  maxDelayMs?: number;
}

/** The defaults: up to 3 attempts, waits of at most 0.25 s, 0.5 s, ... capped at 5 s. */
export const DEFAULT_RETRY: Readonly<Required<RetryOptions>> = Object.freeze({
  retries: 2,
  baseDelayMs: 250,
  maxDelayMs: 5000,
});

/**
 * Fills in defaults; `false` means one attempt. Rejects nonsense eagerly, because options come
 * from configuration and a negative retry count would otherwise silently mean "no retries".
 */
export function resolveRetry(retry: RetryOptions | false | undefined): Required<RetryOptions> {
  if (retry === false) return { ...DEFAULT_RETRY, retries: 0 };
  const resolved = { ...DEFAULT_RETRY, ...retry };
  for (const key of ['retries', 'baseDelayMs', 'maxDelayMs'] as const) {
    const value = resolved[key];
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new RangeError(`retry.${key} must be a non-negative integer`);
    }
  }
  return resolved;
}

/**
 * `429` (rate limited, spec: `TooManyRequests`) and every `5xx` (the service or a proxy in front
 * of it failed; the service's `500` wrote nothing). Any other `4xx` would fail the same way
 * again, so it is returned at once.
 */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || (status >= 500 && status <= 599);
}

/**
 * Exponential backoff with "full jitter" (a uniformly random wait between 0 and the exponential
 * cap), which spreads the retries of many clients hit by the same outage instead of having them
 * return in lockstep.
 * @see https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/
 */
export function backoffDelay(
  attempt: number,
  policy: Required<RetryOptions>,
  random: () => number = Math.random,
): number {
  const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.floor(random() * cap);
}

/**
 * `Retry-After` in milliseconds, from either form RFC 9110 §10.2.3 allows: delay-seconds or an
 * HTTP-date (a date in the past means "now"). Undefined when absent or unreadable, so the caller
 * falls back to backoff.
 */
export function parseRetryAfter(
  header: string | null,
  now: number = Date.now(),
): number | undefined {
  if (header === null) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  // All three HTTP-date forms start with the day name; Date.parse alone would read "-1" as a year.
  if (!/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)/.test(value)) return undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * How long to wait before retrying after a retryable answer, or undefined to give up and hand
 * the answer to the caller: the server's `Retry-After` when it sent one it can be honoured
 * within `maxDelayMs`, otherwise jittered backoff.
 */
export function delayAfterResponse(
  response: Response,
  attempt: number,
  policy: Required<RetryOptions>,
): number | undefined {
  const retryAfter = parseRetryAfter(response.headers.get('Retry-After'));
  if (retryAfter === undefined) return backoffDelay(attempt, policy);
  return retryAfter <= policy.maxDelayMs ? retryAfter : undefined;
}
