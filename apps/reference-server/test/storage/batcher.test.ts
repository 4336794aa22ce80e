/// <reference lib="es2024.promise" />
import { afterEach, describe, expect, test, vi } from 'vitest';
import { batcher } from '../../src/storage/batcher.js';

/** A `run` that records its batches and ends each when the test says so. */
function recordingRun() {
  const batches: { inputs: string[]; end: (error?: Error) => void }[] = [];
  const run = (inputs: string[]) => {
    const { promise, resolve, reject } = Promise.withResolvers<void>();
    batches.push({ inputs, end: (error) => (error ? reject(error) : resolve()) });
    return promise.then(() =>
      inputs.map((input) => ({ status: 'fulfilled' as const, value: input.toUpperCase() })),
    );
  };
  return { run, batches };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

/**
 * The batcher's clock (its `setTimeout` and `performance.now()`) in the test's hands: time moves
 * when the test says, never by waiting. Turns (`setImmediate`) stay real.
 */
function fakeClock() {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
}
afterEach(() => {
  vi.useRealTimers();
});

describe('batcher', () => {
  test('calls of one turn go out as one batch, each answered with its own outcome', async () => {
    const { run, batches } = recordingRun();
    const call = batcher(run, { maxInFlight: 1, maxBatchSize: 10 });
    const answers = Promise.all(['a', 'b', 'c'].map(call));
    await turn();
    expect(batches.map((batch) => batch.inputs)).toEqual([['a', 'b', 'c']]);
    batches[0]?.end();
    expect(await answers).toEqual(['A', 'B', 'C']);
  });

  test('calls made while a batch runs wait, and go out together when it ends', async () => {
    const { run, batches } = recordingRun();
    const call = batcher(run, { maxInFlight: 1, maxBatchSize: 10 });
    const first = call('a');
    await turn();
    const b = call('b');
    await turn();
    const c = call('c');
    await turn();
    expect(batches.map((batch) => batch.inputs)).toEqual([['a']]);
    batches[0]?.end();
    expect(await first).toBe('A');
    await turn();
    expect(batches.map((batch) => batch.inputs)).toEqual([['a'], ['b', 'c']]);
    batches[1]?.end();
    expect([await b, await c]).toEqual(['B', 'C']);
  });

  test('up to maxInFlight batches run at once', async () => {
    const { run, batches } = recordingRun();
    const call = batcher(run, { maxInFlight: 2, maxBatchSize: 10 });
    void call('a');
    await turn();
    void call('b');
    await turn();
    void call('c');
    await turn();
    expect(batches.map((batch) => batch.inputs)).toEqual([['a'], ['b']]);
    batches[1]?.end();
    await turn();
    await turn();
    expect(batches.map((batch) => batch.inputs)).toEqual([['a'], ['b'], ['c']]);
  });

  test('a batch holds at most maxBatchSize inputs; the rest follow in order', async () => {
    const { run, batches } = recordingRun();
    const call = batcher(run, { maxInFlight: 1, maxBatchSize: 2 });
    for (const input of ['a', 'b', 'c', 'd', 'e']) void call(input);
    for (let index = 0; index < 3; index++) {
      await turn();
      batches[index]?.end();
      await turn();
    }
    expect(batches.map((batch) => batch.inputs)).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
  });

  test('a failed batch fails its calls, and the next batch still goes out', async () => {
    const { run, batches } = recordingRun();
    const call = batcher(run, { maxInFlight: 1, maxBatchSize: 10 });
    const failed = Promise.allSettled([call('a'), call('b')]);
    await turn();
    const next = call('c');
    batches[0]?.end(new Error('connection lost'));
    expect((await failed).map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    await turn();
    batches[1]?.end();
    expect(await next).toBe('C');
  });

  test('each call gets its own outcome: one input of a batch can fail alone', async () => {
    const call = batcher(
      async (inputs: string[]) =>
        inputs.map(
          (input): PromiseSettledResult<string> =>
            input === 'bad'
              ? { status: 'rejected', reason: new Error(`refused ${input}`) }
              : { status: 'fulfilled', value: input },
        ),
      { maxInFlight: 1, maxBatchSize: 10 },
    );
    const outcomes = await Promise.allSettled(['a', 'bad', 'c'].map(call));
    expect(outcomes).toEqual([
      { status: 'fulfilled', value: 'a' },
      { status: 'rejected', reason: new Error('refused bad') },
      { status: 'fulfilled', value: 'c' },
    ]);
  });

  test('the next batch starts before the callers of the one that ended resume', async () => {
    // As pg-pool does, each batch's I/O starts on the next tick; the database can then work on
    // the next batch while this process answers the callers of the last one.
    const sent: string[][] = [];
    const { run, batches } = recordingRun();
    const call = batcher(
      (inputs: string[]) => {
        process.nextTick(() => sent.push(inputs));
        return run(inputs);
      },
      { maxInFlight: 1, maxBatchSize: 10 },
    );
    const a = call('a').then(() => sent.map((inputs) => inputs.join()));
    await turn();
    void call('b');
    void call('c');
    await turn();
    batches[0]?.end();
    expect(await a).toEqual(['a', 'b,c']);
  });

  test('a run that throws fails its calls instead of stalling the queue', async () => {
    let calls = 0;
    const call = batcher(
      (inputs: string[]) => {
        calls += 1;
        if (calls === 1) throw new Error('broken');
        return Promise.resolve(inputs.map((value) => ({ status: 'fulfilled' as const, value })));
      },
      { maxInFlight: 1, maxBatchSize: 10 },
    );
    await expect(call('a')).rejects.toThrow('broken');
    expect(await call('b')).toBe('b');
  });

  test('a batch running past stalledAfterMs no longer holds back the calls after it', async () => {
    fakeClock();
    const { run, batches } = recordingRun();
    const call = batcher(run, { maxInFlight: 1, maxBatchSize: 10, stalledAfterMs: 30 });
    const a = call('a');
    await turn();
    const b = call('b');
    const c = call('c');
    await turn();
    expect(batches.map((batch) => batch.inputs)).toEqual([['a']]);
    await vi.advanceTimersByTimeAsync(29);
    await turn();
    expect(batches.map((batch) => batch.inputs)).toEqual([['a']]);
    await vi.advanceTimersByTimeAsync(1);
    await turn();
    // 'a' is stalled (a lock, a dead connection): 'b' and 'c' went out without waiting for it.
    expect(batches.map((batch) => batch.inputs)).toEqual([['a'], ['b', 'c']]);
    batches[1]?.end();
    expect([await b, await c]).toEqual(['B', 'C']);
    batches[0]?.end();
    expect(await a).toBe('A');
  });

  test('without stalledAfterMs a slow batch holds the queue until it ends', async () => {
    fakeClock();
    const { run, batches } = recordingRun();
    const call = batcher(run, { maxInFlight: 1, maxBatchSize: 10 });
    void call('a');
    await turn();
    void call('b');
    await vi.advanceTimersByTimeAsync(60 * 60_000);
    await turn();
    expect(batches.map((batch) => batch.inputs)).toEqual([['a']]);
    batches[0]?.end();
    await turn();
    await turn();
    expect(batches.map((batch) => batch.inputs)).toEqual([['a'], ['b']]);
  });
});
