/**
 * The `fetch` the client hands to openapi-fetch: each attempt bounded by a timeout, failed
 * attempts retried with backoff. It sits below the signing middleware, so it receives the
 * signed `Request` and every attempt re-sends the very same bytes and `Authorization` header
 * (a re-serialized body could differ and would no longer match its signature).
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

/** The `fetch` signature openapi-fetch calls: one `Request`, no init. */
export type FetchLike = (request: Request) => Promise<Response>;

/** Settings of {@link createResilientFetch}, already validated by the client. */
export interface ResilientFetchOptions {
  fetch: FetchLike;
  /** Budget of one attempt, from sending to the last byte of the answer. */
  timeoutMs: number;
  retry: Required<RetryOptions>;
}

/**
 * Wraps `fetch` with a per-attempt timeout (`AbortSignal.timeout` joined to the caller's signal
 * with `AbortSignal.any`) and bounded retries on network failures, timeouts, `429` and `5xx`.
 * The caller's abort ends everything at once, also during a wait, and is never retried.
 * Failures are thrown as {@link UsersClientError}; answers, including the last retryable one,
 * are returned.
 */
export function createResilientFetch({
  fetch,
  timeoutMs,
  retry,
}: ResilientFetchOptions): FetchLike {
  return async function resilientFetch(request) {
    const caller = request.signal;
    // Read once: every attempt sends these very bytes (cheaper than cloning a stream each time).
    const body = request.body === null ? null : await request.arrayBuffer();
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= retry.retries;
      const timeout = AbortSignal.timeout(timeoutMs);
      const sent = new Request(request, { body, signal: AbortSignal.any([caller, timeout]) });
      let response: Response;
      try {
        // Read the whole answer inside the attempt, so that a timeout or a reset while the body
        // streams in is a failed attempt (retried, classified) rather than an error later.
        response = await buffered(await fetch(sent));
      } catch (error) {
        const failure = classify(error, caller, timeout, timeoutMs);
        if (failure.kind === 'aborted' || last) throw failure;
        await sleep(backoffDelay(attempt, retry), caller);
        continue;
      }
      if (last || !isRetryableStatus(response.status)) return response;
      const delay = delayAfterResponse(response, attempt, retry);
      if (delay === undefined) return response;
      await sleep(delay, caller);
    }
  };
}

/** The same answer with its body already received. */
async function buffered(response: Response): Promise<Response> {
  if (response.body === null) return response;
  const { status, statusText, headers } = response;
  return new Response(await response.arrayBuffer(), { status, statusText, headers });
}

/**
 * Decided by which signal fired, not by error names, because injected fetch implementations
 * (test doubles, polyfills, other runtimes) throw different error types.
 */
function classify(
  error: unknown,
  caller: AbortSignal,
  timeout: AbortSignal,
  timeoutMs: number,
): UsersClientError {
  if (caller.aborted) return abortedBy(caller);
  if (timeout.aborted) {
    return new UsersClientError('timeout', `No complete answer within ${timeoutMs} ms`, {
      cause: error,
    });
  }
  return new UsersClientError('network', `The request failed: ${describe(error)}`, {
    cause: error,
  });
}

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

/** A wait that the caller's signal cuts short; written out because `node:timers` is Node only. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(abortedBy(signal));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortedBy(signal));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
