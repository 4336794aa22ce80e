/** Options of {@link batcher}. */
export interface BatcherOptions {
  /** At most this many batches run at once; calls made meanwhile wait and go out together. */
  maxInFlight: number;
  /** At most this many inputs in one batch. */
  maxBatchSize: number;
  /**
   * A batch running longer than this (milliseconds) stops counting toward `maxInFlight`, so that
   * one batch waiting on a lock or a dead connection does not hold back every call after it.
   * Unset: a batch counts until it ends.
   */
  stalledAfterMs?: number;
}

/**
 * Turns `run`, which handles a whole batch of inputs and settles with one outcome per input (in
 * their order; a rejection fails every input of the batch), into a function of one input. The
 * calls of one turn of the event loop go out together, and while `maxInFlight` batches run, new
 * calls queue and go out together when one ends (or stalls): the busier the server, the bigger the
 * batches, with no delay when it is idle.
 *
 * When a batch ends, the calls waiting for it are handed to `run` before the callers of the one
 * that ended resume, and those resume on a later tick (`process.nextTick`) than any `run` started
 * its I/O on (pg-pool dispatches a query on the next tick): so the database works on the next
 * batch while this process answers the last one, instead of after.
 */
export function batcher<Input, Output>(
  run: (inputs: Input[]) => Promise<readonly PromiseSettledResult<Output>[]>,
  { maxInFlight, maxBatchSize, stalledAfterMs }: BatcherOptions,
): (input: Input) => Promise<Output> {
  interface Call {
    input: Input;
    resolve: (output: Output) => void;
    reject: (reason: unknown) => void;
  }
  const queue: Call[] = [];
  /** When each running batch started (`performance.now()`). */
  const running = new Set<{ startedAt: number }>();
  let scheduled = false;
  let stallTimer: ReturnType<typeof setTimeout> | undefined;

  /** The running batches that still count toward maxInFlight, and when the first of them stalls. */
  const counting = () => {
    if (stalledAfterMs === undefined) return { count: running.size, nextStall: undefined };
    const now = performance.now();
    let count = 0;
    let nextStall = Number.POSITIVE_INFINITY;
    for (const { startedAt } of running) {
      if (now - startedAt >= stalledAfterMs) continue;
      count += 1;
      nextStall = Math.min(nextStall, startedAt + stalledAfterMs - now);
    }
    return { count, nextStall };
  };

  const flush = () => {
    scheduled = false;
    while (queue.length > 0 && counting().count < maxInFlight) {
      const batch = queue.splice(0, maxBatchSize);
      const entry = { startedAt: performance.now() };
      running.add(entry);
      const ended = (settle: (call: Call, index: number) => void) => {
        running.delete(entry);
        flush();
        process.nextTick(() => batch.forEach(settle));
      };
      let outcomes: Promise<readonly PromiseSettledResult<Output>[]>;
      try {
        outcomes = run(batch.map((call) => call.input));
      } catch (error) {
        outcomes = Promise.reject(error);
      }
      outcomes.then(
        (results) =>
          ended((call, index) => {
            const result = results[index];
            if (result?.status === 'fulfilled') call.resolve(result.value);
            else
              call.reject(
                result ? result.reason : new Error('The batch gave this call no outcome'),
              );
          }),
        (error: unknown) => ended((call) => call.reject(error)),
      );
    }
    watchForStall();
  };
  /** Calls still wait behind batches that run: look again when the first of those stalls. */
  const watchForStall = () => {
    if (queue.length === 0 || stallTimer !== undefined) return;
    const { nextStall } = counting();
    if (nextStall === undefined || nextStall === Number.POSITIVE_INFINITY) return;
    stallTimer = setTimeout(() => {
      stallTimer = undefined;
      flush();
    }, nextStall);
    stallTimer.unref();
  };
  const schedule = () => {
    if (scheduled || queue.length === 0) return;
    if (counting().count >= maxInFlight) return watchForStall();
    scheduled = true;
    setImmediate(flush);
  };

  return (input) =>
    new Promise<Output>((resolve, reject) => {
      queue.push({ input, resolve, reject });
      schedule();
    });
}
