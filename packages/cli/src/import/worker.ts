/**
 * The import in a worker thread of its own, with a bounded heap (docs/import.md "Memory and speed").
 * A long import allocates a little garbage per row (a `Request`, a `Response`, their streams), and
 * V8, left to its defaults, lets the heap grow far past what the run keeps alive (16 MB after a
 * full collection): a 3,000-row import peaked at 258 MB of RSS here. Node flags cannot be set
 * from inside a running process, and a shebang with flags (`env -S`) does not run everywhere
 * (BusyBox), but a worker takes heap limits of its own (`resourceLimits`): the same import peaked
 * at 165 MB in a worker, and a 20,000-row one at 169 MB.
 *
 * The worker writes the journal itself (synchronous writes), so SIGKILL of the process loses what
 * it would lose without a worker; Ctrl-C and SIGTERM reach it as messages.
 *
 * @module
 */
import { once } from 'node:events';
import { Writable } from 'node:stream';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import type { CliIo } from '../cli-io.js';
import { type ImportIo, runImport } from './run-import.js';

/** The worker's heap: young generation (its semi-spaces) and old generation, in MB. */
export const WORKER_HEAP = Object.freeze({
  maxYoungGenerationSizeMb: 12,
  maxOldGenerationSizeMb: 160,
});

/** What the main thread tells the worker when it starts. */
interface Start {
  args: string[];
  /** stderr is a terminal of this many columns (for the progress bar), or not one. */
  tty: { columns: number } | undefined;
}

/**
 * Whether `io` is this process's own command line (the `institution-api` executable passes
 * `process.env` itself), as opposed to a program or a test that runs the CLI with its own
 * environment, streams or `fetch`: only the former is moved into a worker.
 */
export function ownsProcess(io: CliIo): boolean {
  return isMainThread && io.env === process.env && io.fetch === undefined;
}

/** Runs `institution-api import <args>` in a worker; resolves to its exit code. */
export async function runImportInWorker(args: string[]): Promise<number> {
  const start: Start = {
    args,
    tty: process.stderr.isTTY ? { columns: process.stderr.columns ?? 80 } : undefined,
  };
  const worker = new Worker(new URL(import.meta.url), {
    workerData: start,
    resourceLimits: WORKER_HEAP,
  });
  let code = 1;
  worker.on('message', (message: { code?: number }) => {
    if (typeof message.code === 'number') code = message.code;
  });
  const forward = (signal: 'SIGINT' | 'SIGTERM') => () => worker.postMessage({ interrupt: signal });
  const onInt = forward('SIGINT');
  const onTerm = forward('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  let failure: unknown;
  worker.once('error', (error) => {
    failure = error;
  });
  try {
    await once(worker, 'exit');
  } finally {
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
  }
  if (failure !== undefined) {
    const message = failure instanceof Error ? failure.message : String(failure);
    process.stderr.write(
      `institution-api: the import stopped: ${message}\nThe journal keeps the rows finished: run the same command to resume.\n`,
    );
    return 1;
  }
  return code;
}

/** A stream that writes to this worker's stderr and says it is a terminal, for cli-progress. */
function terminal(columns: number): NodeJS.WritableStream {
  const stream = new Writable({
    write(chunk, _encoding, done) {
      process.stderr.write(chunk, done);
    },
  });
  return Object.assign(stream, { isTTY: true, columns });
}

if (!isMainThread && parentPort && (workerData as Start | undefined)?.args) {
  const port = parentPort;
  const { args, tty } = workerData as Start;
  const io: ImportIo = {
    env: process.env,
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    tty: tty ? terminal(tty.columns) : null,
    onInterrupt: (handler) => {
      const listener = (message: { interrupt?: 'SIGINT' | 'SIGTERM' }) => {
        if (message.interrupt) handler(message.interrupt);
      };
      port.on('message', listener);
      port.unref(); // the import's own work keeps the worker alive, not this listener
      return () => port.off('message', listener);
    },
  };
  const code = await runImport(args, io);
  port.postMessage({ code });
  port.close();
}
