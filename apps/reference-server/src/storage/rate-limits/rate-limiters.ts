import type pg from 'pg';
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRes,
} from 'rate-limiter-flexible';
import type { RateLimitCount, RateLimiter, RateLimitWindow } from '../types.js';

/**
 * The table of migrations/postgres/0003_rate_limits.sql, laid out as rate-limiter-flexible's
 * PostgreSQL store reads and writes it (key, points, expire).
 */
export const rateLimitTable = 'rate_limits';

/**
 * A {@link RateLimiter} whose counts are rows of {@link rateLimitTable}, through `pool`: every
 * server process on the database counts in the same row per key, each request one atomic upsert
 * (`INSERT … ON CONFLICT DO UPDATE … RETURNING`), so N processes allow `limit` in total, not N
 * times it (rate-limiter-flexible's `RateLimiterPostgres`).
 *
 * - The window is fixed: it starts with a key's first request and ends `windowSeconds` later,
 *   when the row's `expire` (epoch milliseconds, set by the process that opened the window) is
 *   past. Processes on several hosts need synchronized clocks (NTP), or the wait each announces is
 *   off by their clocks' difference.
 * - No insurance limiter: a database that cannot count fails the call (503), rather than letting
 *   each process count alone, which would be N times the limit again.
 * - Once a key is over the limit, this process remembers it until the window ends (the library's
 *   in-memory block), so a client that keeps sending while refused costs no query per request:
 *   a spent window cannot be un-spent, so that memory can only be right.
 * - The table is made by a migration, not by the library at start: three processes starting at
 *   once would each run its `CREATE TABLE IF NOT EXISTS`, which PostgreSQL does not serialize.
 * - Each kind of count (`counts`) is a key prefix of its own in the one table (`requests:<id>`,
 *   `refused-by-address:<address>`…).
 */
export function postgresRateLimiter(
  pool: pg.Pool,
  limit: number,
  windowSeconds: number,
  counts: RateLimitCount = 'requests',
): RateLimiter {
  return flexible(
    new RateLimiterPostgres({
      storeClient: pool,
      storeType: 'pool',
      tableName: rateLimitTable,
      tableCreated: true,
      keyPrefix: counts,
      points: limit,
      duration: windowSeconds,
      inMemoryBlockOnConsumed: limit + 1,
    }),
  );
}

/**
 * A {@link RateLimiter} in this process's memory (rate-limiter-flexible's `RateLimiterMemory`), for
 * the embedded SQLite database: it serves one server process (a second refuses to start, see
 * ../sqlite-server-lock.ts), so the process's memory is where all of its requests are counted. The
 * library's SQLite store would add a write, and a wait for the disk, to every request, to share a
 * count with nobody; its drivers are not node:sqlite either.
 */
export function memoryRateLimiter(
  limit: number,
  windowSeconds: number,
  counts: RateLimitCount = 'requests',
): RateLimiter {
  return flexible(
    new RateLimiterMemory({ keyPrefix: counts, points: limit, duration: windowSeconds }),
  );
}

/**
 * rate-limiter-flexible's answer as a {@link RateLimitWindow}: it resolves a request within the
 * limit and rejects one over it, both with a `RateLimiterRes`, and rejects with the store's error
 * when it could not count (passed on, for the storage's guard to classify).
 */
function flexible(limiter: RateLimiterAbstract): RateLimiter {
  const window = (res: RateLimiterRes, allowed: boolean): RateLimitWindow => ({
    allowed,
    remaining: Math.max(0, res.remainingPoints),
    resetsInMs: Math.max(0, res.msBeforeNext),
    counted: res.consumedPoints,
  });
  return {
    consume: (key) =>
      limiter.consume(key).then(
        (res) => window(res, true),
        (rejection: unknown) => {
          if (rejection instanceof RateLimiterRes) return window(rejection, false);
          throw rejection;
        },
      ),
  };
}
