import type { Logger } from 'pino';
import type { StorageHealthObserver } from './unavailable.js';

/** The outage log: told of the storage's calls, and of each request answered 503 for want of it. */
export interface OutageLog extends StorageHealthObserver {
  /** A request was answered 503 `unavailable` (several may share one failed call to the database). */
  refusedRequest(): void;
  /**
   * False from the first call that failed for want of the database until the outage is over, as
   * logged (the `institution_api_database_up` metric, metrics/metrics.ts); true otherwise.
   */
  databaseUp(): boolean;
}

/**
 * How long the database must answer without a fault before an outage counts as over: a full disk
 * or a restarting server fails some calls and serves others for a while, which is one outage, not
 * dozens.
 */
export const outageQuietMs = 1_000;

/**
 * What an operator reads of an outage of the database: one `error` line when the first call fails
 * for want of it, and one `info` line when it is over (a call succeeds {@link outageQuietMs} after
 * the last failure), with how long it lasted and how many requests were refused meanwhile (answered
 * 503), instead of an error and a stack per request. A quiet server reports the end late: at its
 * next call that succeeds.
 */
export function outageLog(logger: Logger, now: () => number = Date.now): OutageLog {
  let outage:
    | { since: number; lastFault: number; refusedRequests: number; failedHealthChecks: number }
    | undefined;
  return {
    unavailable(error, call) {
      const time = now();
      if (!outage) {
        outage = { since: time, lastFault: time, refusedRequests: 0, failedHealthChecks: 0 };
        const { code } = error.cause as { code?: unknown };
        logger.error(
          { reason: error.reason, code, cause: (error.cause as Error).message },
          'database unavailable: requests are answered 503 until it recovers',
        );
      }
      outage.lastFault = time;
      if (call === 'ping') outage.failedHealthChecks += 1;
    },
    refusedRequest() {
      if (outage) outage.refusedRequests += 1;
    },
    databaseUp: () => outage === undefined,
    available() {
      if (!outage) return;
      const time = now();
      if (time - outage.lastFault < outageQuietMs) return;
      const { since, refusedRequests, failedHealthChecks } = outage;
      outage = undefined;
      logger.info(
        { durationMs: time - since, refusedRequests, failedHealthChecks },
        'database available again',
      );
    },
  };
}
