/**
 * The attempts of one call: each bounded by the client's timeout, failed ones retried with the
 * waits of `retry-policy.ts`, everything ended at once by the caller's signal (README, "Timeouts
 * and retries"). Shared by `createUser`/`updateUser` and the `raw` client's fetch.
 *
 * Built for the fast path, which a profile showed dominated by signal plumbing: no
 * `AbortSignal.timeout`/`AbortSignal.any`, one listener on the caller's signal per call (not per
 * attempt), one Promise per call, and the attempt's signal goes to `fetch` in its `init`
 * instead of onto a `Request` (a signal on a `Request` costs undici a listener and a finalizer).
 *
 * @module
 */
import { UsersClientError } from './errors.js';
import {
  backoffDelay,
  delayAfterResponse,
  isRetryableStatus,
  type RetryOptions,
} from './retry-policy.js';

/** How one call is sent. */
export interface CallPlan<T> {
  /** Sends one attempt; `signal` aborts when the attempt times out or the caller aborts. */
  send: (signal: AbortSignal) => Promise<T>;
  /** The HTTP answer in what `send` resolves with, to decide on a retry. */
  responseOf: (value: T) => Response;
  /** Budget of one attempt, from sending to the last byte of the answer. */
  timeoutMs: number;
  retry: Required<RetryOptions>;
  /** The caller's signal: ends the call at once, attempt or wait, and is never retried. */
  caller: AbortSignal | undefined;
  /** Told before each wait for a further attempt (CallOptions.onRetry). */
  onRetry?: ((notice: RetryNotice) => void) | undefined;
}

/**
 * What a call's `onRetry` is told before it waits for a further attempt: which attempt failed,
 * how, and how long the wait is, so a caller can show progress or the real time budget.
 */
export interface RetryNotice {
  /** The attempt that failed, from 1. */
  attempt: number;
  /** How many attempts the call may make in all (retries + 1). */
  attempts: number;
  /** The wait before the next attempt, in milliseconds. */
  delayMs: number;
  /** The status the service answered (429, 5xx), or the failure (`timeout`, `network`). */
  after: { status: number } | { failure: 'timeout' | 'network'; message: string };
}

/**
 * Sends until an attempt gives an answer that is not to be retried, or fails for good.
 * Network failures and timeouts are retried after a backoff, `429`/`5xx` answers after their
 * `Retry-After` or a backoff. Resolves with the last answer, retryable or not; rejects with a
 * {@link UsersClientError}: `aborted` (the caller's signal, also when it had fired before),
 * `timeout` or `network` (`send` rejected: the request could not be sent or its answer not
 * received). An attempt ends at its deadline even if `send` ignores its signal.
 */
export function sendWithRetries<T>(plan: CallPlan<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    new Call(plan, resolve, reject).start();
  });
}

/** One call in progress; also the caller signal's abort listener (`handleEvent`). */
class Call<T> {
  private attempt = 0;
  /** The attempt in flight; undefined between attempts and once the call is over. */
  private controller: AbortController | undefined;
  /** The attempt's deadline, or the wait before the next attempt. */
  private timer: ReturnType<typeof setTimeout> | undefined;
  private over = false;
  private readonly plan: CallPlan<T>;
  private readonly resolve: (value: T) => void;
  private readonly reject: (error: unknown) => void;

  constructor(plan: CallPlan<T>, resolve: (value: T) => void, reject: (error: unknown) => void) {
    this.plan = plan;
    this.resolve = resolve;
    this.reject = reject;
  }

  start(): void {
    const { caller } = this.plan;
    if (caller?.aborted) {
      this.reject(abortedBy(caller));
      return;
    }
    caller?.addEventListener('abort', this, { once: true });
    this.send();
  }

  private send(): void {
    const controller = new AbortController();
    this.controller = controller;
    this.timer = setTimeout(() => this.expire(controller), this.plan.timeoutMs);
    let sent: Promise<T>;
    try {
      sent = this.plan.send(controller.signal);
    } catch (error) {
      sent = Promise.reject(error);
    }
    sent.then(
      (value) => {
        if (this.end(controller)) this.answered(value);
      },
      (error: unknown) => {
        if (!this.end(controller)) return;
        const message = `The request failed: ${describe(error)}`;
        this.failed(new UsersClientError('network', message, { cause: error }));
      },
    );
  }

  /** Ends the attempt of `controller`; false when it had already ended (timeout, abort). */
  private end(controller: AbortController): boolean {
    if (this.controller !== controller) return false;
    this.controller = undefined;
    clearTimeout(this.timer);
    return true;
  }

  private expire(controller: AbortController): void {
    if (!this.end(controller)) return;
    const { timeoutMs } = this.plan;
    const reason = new DOMException(`No complete answer within ${timeoutMs} ms`, 'TimeoutError');
    controller.abort(reason);
    this.failed(new UsersClientError('timeout', reason.message, { cause: reason }));
  }

  private answered(value: T): void {
    const { retry, responseOf } = this.plan;
    if (this.attempt < retry.retries) {
      const response = responseOf(value);
      if (isRetryableStatus(response.status)) {
        const delay = delayAfterResponse(response, this.attempt, retry);
        if (delay !== undefined) {
          this.wait(delay, { status: response.status });
          return;
        }
      }
    }
    this.finish();
    this.resolve(value);
  }

  private failed(error: UsersClientError): void {
    const { retry } = this.plan;
    if (this.attempt < retry.retries) {
      const failure = error.kind === 'timeout' ? 'timeout' : 'network';
      this.wait(backoffDelay(this.attempt, retry), { failure, message: error.message });
      return;
    }
    this.finish();
    this.reject(error);
  }

  private wait(ms: number, after: RetryNotice['after']): void {
    const { onRetry, retry } = this.plan;
    if (onRetry !== undefined) {
      const notice = { attempt: this.attempt + 1, attempts: retry.retries + 1, delayMs: ms, after };
      // An observer that throws must not end the call: it only watches.
      try {
        onRetry(notice);
      } catch {}
    }
    this.attempt++;
    this.timer = setTimeout(() => this.send(), ms);
  }

  /** The caller's signal fired: during an attempt or a wait, the call ends now. */
  handleEvent(): void {
    const { caller } = this.plan;
    if (this.over || caller === undefined) return;
    clearTimeout(this.timer);
    this.controller?.abort(caller.reason);
    this.controller = undefined;
    this.finish();
    this.reject(abortedBy(caller));
  }

  private finish(): void {
    this.over = true;
    this.plan.caller?.removeEventListener('abort', this);
  }
}

/** The error for a call ended by the caller's own signal; its reason is the cause. */
function abortedBy(signal: AbortSignal): UsersClientError {
  return new UsersClientError('aborted', 'The request was aborted by the caller', {
    cause: signal.reason,
  });
}

/** Node's fetch says only "fetch failed"; the system error code (ECONNREFUSED) is in `cause`. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error.cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? `${error.message} (${code})` : error.message;
}
