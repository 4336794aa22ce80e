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
 * Turns `run`, which handles a whole batch of inputs (one promise of an outcome per input, in
 * their order), into a function of one input. The calls of one turn of the event loop go out
 * together, and while `maxInFlight` batches run, new calls queue and go out together when one
 * ends (or stalls): the busier the server, the bigger the batches, with no delay when it is idle.
 */
export function batcher<Input, Output>(
  run: (inputs: Input[]) => Promise<Output>[],
  { maxInFlight, maxBatchSize, stalledAfterMs }: BatcherOptions,
): (input: Input) => Promise<Output> {
  interface Call {
    input: Input;
    resolve: (output: Promise<Output>) => void;
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
      let outcomes: Promise<Output>[];
      try {
        outcomes = run(batch.map((call) => call.input));
      } catch (error) {
        outcomes = batch.map(() => Promise.reject(error));
      }
      for (const [index, call] of batch.entries()) call.resolve(outcomes[index] as Promise<Output>);
      void Promise.allSettled(outcomes).then(() => {
        running.delete(entry);
        schedule();
      });
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
    new Promise<Output>((resolve) => {
      queue.push({ input, resolve });
      schedule();
    });
}
