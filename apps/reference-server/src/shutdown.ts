import type { Server } from 'node:http';
import { type Drainable, drainable } from '@institution-api/runtime/server-stop';
import type { Logger } from 'pino';
import { flushLogs } from './logger.js';
import type { Storage } from './storage/types.js';

/** How long closing the storage may take once requests have drained. */
export const storageCloseTimeoutMs = 3_000;
/** How long the last log lines may take to be written before the process exits without them. */
export const logFlushTimeoutMs = 1_000;
/**
 * A second signal this soon after the first is the same stop: under `npm start`, Ctrl-C reaches
 * the server twice at once, from the terminal and forwarded by npm.
 */
export const repeatWindowMs = 1_000;

/** What {@link handleStopSignals} stops, handed to it as start-up opens each. */
export interface StopControl {
  /** The storage to close at the end of a stop (closed at once if a stop already began). */
  storage(storage: Storage): void;
  /** The listening server to drain (closed at once if a stop already began). */
  server(server: Server): void;
  /** The metrics listener (METRICS_PORT): closed once the API has drained. */
  metricsServer(server: Server): void;
  /** Whether a stop signal came: start-up goes no further. */
  readonly stopping: boolean;
}

/**
 * Graceful and bounded stop on SIGTERM and SIGINT, installed before anything is opened so that a
 * signal during start-up closes what is open and exits too (docs/operating.md, "Shutdown"):
 *
 * 1. stop accepting connections; let requests in flight finish, each answered with
 *    `Connection: close`; close idle keep-alive connections at once and, after `drainTimeoutMs`,
 *    every connection left (a request hanging open does not hold the stop); then close the
 *    metrics listener, whose last scrape may have seen the drain;
 * 2. close the storage, waiting at most {@link storageCloseTimeoutMs};
 * 3. write the last log lines, waiting at most {@link logFlushTimeoutMs} (stdout may be a pipe
 *    nobody reads any more), and exit 0 (1 if the storage failed to close).
 *
 * Whatever hangs, the process exits 1 at `drainTimeoutMs` + {@link storageCloseTimeoutMs} +
 * {@link logFlushTimeoutMs} + 1 s. A second signal, more than {@link repeatWindowMs} after the
 * first, exits 1 at once.
 */
export function handleStopSignals(options: {
  logger: Logger;
  drainTimeoutMs: number;
  /** Ends the process; tests pass their own. */
  exit?: (code: number) => void;
}): StopControl {
  const { logger, drainTimeoutMs } = options;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let stopSignalAt: number | undefined;
  let storage: Storage | undefined;
  // The API's listener, drained as the mock server drains (@institution-api/runtime/server-stop).
  let api: Drainable | undefined;
  let metricsServer: Server | undefined;

  const closeMetrics = (listening: Server) => {
    listening.close();
    listening.closeAllConnections();
  };

  const closeStorage = async (open: Storage): Promise<boolean> => {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        open.close(),
        new Promise((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`the storage did not close within ${storageCloseTimeoutMs} ms`)),
            storageCloseTimeoutMs,
          );
        }),
      ]);
      return true;
    } catch (error) {
      logger.error({ err: error }, 'closing the storage failed');
      return false;
    } finally {
      clearTimeout(timer);
    }
  };

  const stop = async (signal: NodeJS.Signals) => {
    if (stopSignalAt !== undefined) {
      if (Date.now() - stopSignalAt < repeatWindowMs) return;
      logger.warn({ signal }, 'second stop signal: exiting without draining');
      await flushLogs(logger, 0);
      exit(1);
      return;
    }
    stopSignalAt = Date.now();
    // The bound on the whole stop, whatever is pending.
    setTimeout(
      async () => {
        logger.error('the stop took too long: exiting');
        await flushLogs(logger, 0);
        exit(1);
      },
      drainTimeoutMs + storageCloseTimeoutMs + logFlushTimeoutMs + 1_000,
    );
    logger.info({ signal, inFlight: api?.inFlight ?? 0 }, 'stopping: draining in-flight requests');
    await api?.drain(drainTimeoutMs, () =>
      logger.warn({ drainTimeoutMs }, 'drain deadline passed: closing remaining connections'),
    );
    if (metricsServer) closeMetrics(metricsServer);
    const closed = storage ? await closeStorage(storage) : true;
    logger.info('stopped');
    await flushLogs(logger, logFlushTimeoutMs);
    exit(closed ? 0 : 1);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);

  return {
    get stopping() {
      return stopSignalAt !== undefined;
    },
    storage(opened) {
      storage = opened;
    },
    metricsServer(listening) {
      metricsServer = listening;
    },
    server(listening) {
      api = drainable(listening);
    },
  };
}
