import type { RequestHandler } from 'express';
import { StorageUnavailableError } from '../storage/health/unavailable.js';
import type { Storage } from '../storage/types.js';
import { HttpProblem, problemKinds } from './problem.js';

/** How long the database may take to answer a health check before the server reports 503. */
const pingTimeoutMs = 2_000;

/**
 * `GET /healthz`, for load balancers and orchestrators: outside `/api/v1` and unauthenticated (it
 * is not part of the interface). 200 `{"status":"ok"}` when the database answers a trivial query
 * in time, else a 503 problem; the cause is logged, not answered (an outage by the storage's outage
 * log, once, rather than at every check).
 */
export function health(storage: Storage): RequestHandler {
  return async (req, res) => {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        storage.ping(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('database ping timed out')), pingTimeoutMs);
        }),
      ]);
    } catch (error) {
      if (!(error instanceof StorageUnavailableError)) {
        req.log.error({ err: error }, 'health check failed');
      }
      throw new HttpProblem(problemKinds.unavailable, 'The database does not answer.');
    } finally {
      clearTimeout(timer);
    }
    res.status(200).json({ status: 'ok' });
  };
}
