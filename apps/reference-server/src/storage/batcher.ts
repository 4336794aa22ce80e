/** Options of {@link batcher}. */
export interface BatcherOptions {
  /** At most this many batches run at once; calls made meanwhile wait and go out together. */
  maxInFlight: number;
  /** At most this many inputs in one batch. */
  maxBatchSize: number;
}

/**
 * Turns `run`, which handles a whole batch of inputs (one promise of an outcome per input, in
 * their order), into a function of one input. The calls of one turn of the event loop go out
 * together, and while `maxInFlight` batches run, new calls queue and go out together when one
 * ends: the busier the server, the bigger the batches, with no timer and no delay when it is idle.
 */
export function batcher<Input, Output>(
  run: (inputs: Input[]) => Promise<Output>[],
  { maxInFlight, maxBatchSize }: BatcherOptions,
): (input: Input) => Promise<Output> {
  interface Call {
    input: Input;
    resolve: (output: Promise<Output>) => void;
  }
  const queue: Call[] = [];
  let inFlight = 0;
  let scheduled = false;

  const flush = () => {
    scheduled = false;
    while (inFlight < maxInFlight && queue.length > 0) {
      const batch = queue.splice(0, maxBatchSize);
      inFlight += 1;
      let outcomes: Promise<Output>[];
      try {
        outcomes = run(batch.map((call) => call.input));
      } catch (error) {
        outcomes = batch.map(() => Promise.reject(error));
      }
      for (const [index, call] of batch.entries()) call.resolve(outcomes[index] as Promise<Output>);
      void Promise.allSettled(outcomes).then(done);
    }
  };
  const schedule = () => {
    if (scheduled || inFlight >= maxInFlight || queue.length === 0) return;
    scheduled = true;
    setImmediate(flush);
  };
  const done = () => {
    inFlight -= 1;
    schedule();
  };

  return (input) =>
    new Promise<Output>((resolve) => {
      queue.push({ input, resolve });
      schedule();
    });
}
