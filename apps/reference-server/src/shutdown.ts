import type { Server, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Storage } from './storage/types.js';

/** How long in-flight requests may take to finish once a stop signal arrived. */
export const drainTimeoutMs = 10_000;

/**
 * Graceful shutdown on SIGTERM and SIGINT: stop accepting connections, let in-flight requests
 * finish (answering them with `Connection: close`), close idle keep-alive connections, and after
 * {@link drainTimeoutMs} cut whatever is left; then close the storage (a PGlite checkpoint and the
 * data directory's lock) and exit 0. A second signal exits at once with 1.
 */
export function stopGracefullyOnSignals(server: Server, storage: Storage, logger: Logger): void {
  let stopping = false;
  // Responses not yet sent when the signal comes: told to close their connection once done.
  const inFlight = new Set<ServerResponse>();
  server.on('request', (_req, res: ServerResponse) => {
    if (stopping) res.setHeader('Connection', 'close');
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
  });

  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second stop signal: exiting without draining');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal, inFlight: inFlight.size }, 'stopping: draining in-flight requests');
    for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const deadline = setTimeout(() => {
      logger.warn({ drainTimeoutMs }, 'drain deadline passed: closing remaining connections');
      server.closeAllConnections();
    }, drainTimeoutMs);
    await closed;
    clearTimeout(deadline);
    try {
      await storage.close();
    } catch (error) {
      logger.error({ err: error }, 'closing the storage failed');
      process.exitCode = 1;
    }
    logger.info('stopped');
    logger.flush();
    process.exit();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
