/// <reference lib="es2024.promise" />
// For Promise.withResolvers (ES2024, Node 22+): the base tsconfig's lib stops at ES2023.
import { Worker } from 'node:worker_threads';

/** What one `PRAGMA wal_checkpoint(PASSIVE)` reported, in frames (pages) of the log. */
export interface CheckpointReport {
  /** Frames in the write-ahead log. */
  log: number;
  /** Frames of them now copied into the database file. */
  checkpointed: number;
}

/** Checkpoints of the write-ahead log on a thread of their own; see {@link startCheckpointer}. */
export interface Checkpointer {
  /**
   * To call after each COMMIT: asks for a checkpoint, run at most every `minIntervalMs` (one at a
   * time; asked for meanwhile, the next one runs when that time has passed).
   */
  afterCommit(): void;
  /**
   * A promise while writes must wait for a checkpoint to catch up with the log, to keep it
   * bounded; undefined otherwise (nearly always).
   */
  beforeWrite(): Promise<void> | undefined;
  /** Waits for a running checkpoint, then ends the thread. */
  close(): Promise<void>;
}

/** Options of {@link startCheckpointer}. */
export interface CheckpointerOptions {
  /**
   * The log length, in frames, at which writes wait for a checkpoint to copy all of it, so that
   * SQLite can start the log over (a 4 KiB page each: 10,000 frames is about 40 MB).
   */
  maxLogFrames?: number;
  /**
   * The least time from the end of a checkpoint to the start of the next (default 500 ms), so
   * that steady writes are copied in batches, as SQLite's own every thousand pages would, not
   * after every commit (which costs two fsyncs each).
   */
  minIntervalMs?: number;
  /** Each finished checkpoint, for tests and measurements. */
  onCheckpoint?: (report: CheckpointReport) => void;
  /** The thread ended: the caller goes back to SQLite's own checkpoints, in its COMMITs. */
  onFailure: (error: Error) => void;
  /** How long the thread's connection waits for a lock (milliseconds). */
  busyTimeoutMs: number;
}

/**
 * The thread's code (CommonJS, run with `eval`, so it needs no file of its own next to either the
 * sources or the build): its own connection to the database file, one PASSIVE checkpoint per
 * message. PASSIVE copies what it can without waiting for, or blocking, the server's connection.
 */
const threadSource = `
const { parentPort, workerData } = require('node:worker_threads');
const { DatabaseSync } = require('node:sqlite');
const db = new DatabaseSync(workerData.file);
db.exec('PRAGMA busy_timeout = ' + Number(workerData.busyTimeoutMs));
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
parentPort.on('message', () => {
  try {
    const { log, checkpointed } = checkpoint.get();
    parentPort.postMessage({ log, checkpointed });
  } catch (error) {
    parentPort.postMessage({ error: String(error && error.message) });
  }
});
`;

/**
 * Checkpoints the write-ahead log of `file` on a worker thread instead of in the server's COMMITs
 * (the connection runs with `wal_autocheckpoint = 0`). SQLite's automatic checkpoint copies about
 * a thousand pages into the database file and syncs it inside the COMMIT that crosses the
 * threshold, blocking the event loop for milliseconds every second or so under load, which is
 * what the embedded server's slowest answers were made of.
 *
 * While writes keep coming, the log only starts over once a checkpoint has copied all of it
 * before the next write begins; so when a checkpoint reports `maxLogFrames` or more, the next
 * writes wait until one more checkpoint has caught up (rarely: the time-ordered ids of new-id.ts
 * keep the pages a create touches few).
 * A checkpoint interrupted by a crash is finished by the next open, as with SQLite's own.
 */
export function startCheckpointer(file: string, options: CheckpointerOptions): Checkpointer {
  const maxLogFrames = options.maxLogFrames ?? 10_000;
  const minIntervalMs = options.minIntervalMs ?? 500;
  const worker = new Worker(threadSource, {
    eval: true,
    workerData: { file, busyTimeoutMs: options.busyTimeoutMs },
  });
  // The storage's close() ends it; a thread of its own must not keep the process alive.
  worker.unref();

  let failed = false;
  let running: PromiseWithResolvers<void> | undefined;
  let wanted = false;
  let hold: PromiseWithResolvers<void> | undefined;
  let lastEnded = Number.NEGATIVE_INFINITY;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const start = () => {
    timer = undefined;
    if (failed) return;
    wanted = false;
    running = Promise.withResolvers<void>();
    worker.postMessage('checkpoint');
  };
  /** Starts a checkpoint now (`urgent`: the log is held) or once `minIntervalMs` has passed. */
  const request = (urgent = false) => {
    if (failed) return;
    if (running) {
      wanted = true;
      return;
    }
    const wait = urgent ? 0 : lastEnded + minIntervalMs - performance.now();
    if (wait <= 0) {
      if (timer !== undefined) clearTimeout(timer);
      start();
    } else if (timer === undefined) {
      timer = setTimeout(start, wait);
      timer.unref();
    }
  };
  const finishRunning = () => {
    running?.resolve();
    running = undefined;
    lastEnded = performance.now();
  };
  const fail = (error: Error) => {
    if (failed) return;
    failed = true;
    finishRunning();
    hold?.resolve();
    hold = undefined;
    options.onFailure(error);
  };

  worker.on('message', (message: CheckpointReport | { error: string }) => {
    finishRunning();
    if ('error' in message) {
      // A checkpoint that failed (the disk full, a lock held past the busy timeout) is tried again
      // after minIntervalMs; writes held for it go on meanwhile (on a full disk they fail too, as
      // 503s), rather than waiting for a checkpoint that cannot run. Only the thread's end is final.
      hold?.resolve();
      hold = undefined;
      return request();
    }
    options.onCheckpoint?.(message);
    if (hold) {
      // Nothing was written during this checkpoint: the log is copied, the next write restarts it.
      hold.resolve();
      hold = undefined;
    } else if (message.log >= maxLogFrames) {
      hold = Promise.withResolvers<void>();
      return request(true);
    }
    if (wanted) request();
  });
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`checkpoint thread exited (code ${code})`)));

  return {
    afterCommit: () => request(),
    beforeWrite: () => hold?.promise,
    async close() {
      if (timer !== undefined) clearTimeout(timer);
      await running?.promise;
      failed = true;
      hold?.resolve();
      await worker.terminate();
    },
  };
}
