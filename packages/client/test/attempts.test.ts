/**
 * The attempts of one call: the timeout, the caller's signal, and both reaching `send` as the
 * signal it is given; retries and the waits between them; nothing left behind on the caller's
 * signal and nothing keeping the process alive. (Retries against real sockets, through the
 * public client: resilient-fetch.test.ts.)
 */
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { type CallPlan, sendWithRetries } from '../src/attempts.js';
import { UsersClientError } from '../src/errors.js';

/** A `send` that never settles and ignores its signal, as a careless injected fetch might. */
const hang = () => new Promise<never>(() => {});
const ONE_ATTEMPT = { retries: 0, baseDelayMs: 1, maxDelayMs: 1 };

function plan<T>(send: CallPlan<T>['send'], options: Partial<CallPlan<T>> = {}): CallPlan<T> {
  return {
    send,
    responseOf: (value) => value as Response,
    timeoutMs: 1000,
    retry: ONE_ATTEMPT,
    caller: undefined,
    ...options,
  };
}

async function failure(promise: Promise<unknown>): Promise<UsersClientError> {
  const error = await promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(UsersClientError);
  return error as UsersClientError;
}

describe('sendWithRetries: one attempt', () => {
  it("resolves with send's value, giving send a live signal", async () => {
    let given: AbortSignal | undefined;
    const value = await sendWithRetries(
      plan(async (signal) => {
        given = signal;
        return 42;
      }),
    );
    expect(value).toBe(42);
    expect(given).toBeInstanceOf(AbortSignal);
    expect(given?.aborted).toBe(false);
  });

  it('ends an attempt at its deadline, even when send ignores the signal, and aborts the signal', async () => {
    let given: AbortSignal | undefined;
    const started = performance.now();
    const error = await failure(
      sendWithRetries(
        plan(
          (signal) => {
            given = signal;
            return hang();
          },
          { timeoutMs: 100 },
        ),
      ),
    );
    expect(performance.now() - started).toBeGreaterThanOrEqual(95);
    expect(error.kind).toBe('timeout');
    expect(error.message).toBe('No complete answer within 100 ms');
    expect(given?.aborted).toBe(true);
    expect(given?.reason).toMatchObject({ name: 'TimeoutError' });
  });

  it("ends an attempt at once when the caller's signal fires, with its reason, and aborts the signal", async () => {
    const controller = new AbortController();
    let given: AbortSignal | undefined;
    const pending = sendWithRetries(
      plan(
        (signal) => {
          given = signal;
          return hang();
        },
        { timeoutMs: 10_000, caller: controller.signal },
      ),
    );
    controller.abort(new Error('user cancelled'));
    const error = await failure(pending);
    expect(error.kind).toBe('aborted');
    expect(error.cause).toEqual(new Error('user cancelled'));
    expect(given?.aborted).toBe(true);
    expect(given?.reason).toEqual(new Error('user cancelled'));
  });

  it('does not call send when the caller has already aborted', async () => {
    let called = false;
    const error = await failure(
      sendWithRetries(
        plan(
          async () => {
            called = true;
          },
          { caller: AbortSignal.abort() },
        ),
      ),
    );
    expect(error.kind).toBe('aborted');
    expect(called).toBe(false);
  });

  it('reports a send that fails as a network error with the cause and its system code', async () => {
    const cause = new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } });
    const error = await failure(
      sendWithRetries(
        plan(async () => {
          throw cause;
        }),
      ),
    );
    expect(error.kind).toBe('network');
    expect(error.message).toBe('The request failed: fetch failed (ECONNREFUSED)');
    expect(error.cause).toBe(cause);
  });
});

describe('sendWithRetries: retries', () => {
  const retry = { retries: 2, baseDelayMs: 1, maxDelayMs: 1000 };
  const answer = (status: number, headers: Record<string, string> = {}) =>
    new Response(null, { status, headers });

  it('retries a timeout and a network failure with a fresh signal each time, then answers', async () => {
    const signals: AbortSignal[] = [];
    const outcomes = [hang, () => Promise.reject(new TypeError('reset')), async () => answer(201)];
    const response = await sendWithRetries(
      plan(
        (signal) => {
          signals.push(signal);
          return (outcomes[signals.length - 1] ?? hang)();
        },
        { timeoutMs: 50, retry },
      ),
    );
    expect(response.status).toBe(201);
    expect(signals).toHaveLength(3);
    expect(new Set(signals).size).toBe(3);
    expect(signals.map((signal) => signal.aborted)).toEqual([true, false, false]);
  });

  it('retries a 503 after its Retry-After, and returns the last answer once the retries are spent', async () => {
    let calls = 0;
    const started = performance.now();
    const response = await sendWithRetries(
      plan(
        async () => {
          calls++;
          return answer(503, { 'Retry-After': '0' });
        },
        { retry },
      ),
    );
    expect(calls).toBe(3);
    expect(response.status).toBe(503);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('does not retry an answer that is not 429 or 5xx', async () => {
    let calls = 0;
    const response = await sendWithRetries(
      plan(
        async () => {
          calls++;
          return answer(409);
        },
        { retry },
      ),
    );
    expect(response.status).toBe(409);
    expect(calls).toBe(1);
  });

  it.each([
    {
      given: 'a timeout, a reset, then 503s',
      outcomes: [hang, () => Promise.reject(new TypeError('reset'))],
      want: [
        { attempt: 1, after: { failure: 'timeout', message: 'No complete answer within 50 ms' } },
        { attempt: 2, after: { failure: 'network', message: 'The request failed: reset' } },
      ],
    },
    {
      given: 'three 503s',
      outcomes: [],
      want: [
        { attempt: 1, after: { status: 503 } },
        { attempt: 2, after: { status: 503 } },
      ],
    },
  ])(
    'tells onRetry of each failed attempt before its wait, not of the last: $given',
    async ({ outcomes, want }) => {
      const notices: unknown[] = [];
      let calls = 0;
      await sendWithRetries(
        plan(() => (outcomes[calls++] ?? (async () => answer(503, { 'Retry-After': '0' })))(), {
          timeoutMs: 50,
          retry,
          onRetry: (notice) => notices.push(notice),
        }),
      ).catch(() => {});
      expect(calls).toBe(3);
      expect(notices).toEqual(
        want.map((notice) => ({ ...notice, attempts: 3, delayMs: expect.any(Number) })),
      );
    },
  );

  it('keeps retrying when onRetry throws: it only watches', async () => {
    let calls = 0;
    const response = await sendWithRetries(
      plan(async () => answer(++calls < 3 ? 503 : 201, { 'Retry-After': '0' }), {
        retry,
        onRetry: () => {
          throw new Error('a broken observer');
        },
      }),
    );
    expect(response.status).toBe(201);
  });

  it("cuts the wait before a retry short when the caller's signal fires", async () => {
    const controller = new AbortController();
    let calls = 0;
    const pending = sendWithRetries(
      plan(
        async () => {
          calls++;
          return answer(503, { 'Retry-After': '1' });
        },
        { retry, caller: controller.signal },
      ),
    );
    setTimeout(() => controller.abort(new Error('enough')), 50);
    const started = performance.now();
    const error = await failure(pending);
    expect(error.kind).toBe('aborted');
    expect(performance.now() - started).toBeLessThan(900);
    expect(calls).toBe(1);
  });
});

describe('sendWithRetries: nothing left behind', () => {
  it("leaves no listener on the caller's signal, whatever the outcome", async () => {
    const controller = new AbortController();
    const caller = controller.signal;
    await sendWithRetries(plan(async () => 1, { caller }));
    await sendWithRetries(plan(async () => Promise.reject(new Error('reset')), { caller })).catch(
      () => {},
    );
    await sendWithRetries(plan(hang, { caller, timeoutMs: 20 })).catch(() => {});
    expect(getEventListeners(caller, 'abort')).toHaveLength(0);
  });

  it('does not keep the process alive once the call is over', async () => {
    // A quick call with a one-minute timeout leaves no timer behind once it is answered: the
    // attempt's timer is cleared with the answer, so a process that made it exits by itself.
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout');
    const before = timers().length;
    await sendWithRetries(
      plan(async () => new Response(null, { status: 201 }), {
        timeoutMs: 60_000,
        retry: { retries: 2, baseDelayMs: 250, maxDelayMs: 5000 },
      }),
    );
    expect(timers()).toHaveLength(before);
  });
});
