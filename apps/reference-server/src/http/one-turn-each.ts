/**
 * A queue that runs the work given to it one at a time, in order, each once the event loop has
 * turned since the one before ended (`setImmediate`), so that I/O waiting meanwhile (other
 * requests) is served between them. A work that fails fails its own caller only.
 */
export function oneTurnEach(): <T>(work: () => Promise<T>) => Promise<T> {
  let last: Promise<unknown> = Promise.resolve();
  return (work) => {
    const run = last.then(() => new Promise((resolve) => setImmediate(resolve))).then(work);
    last = run.catch(() => undefined);
    return run;
  };
}
