import type { RequestHandler } from 'express';
import type { Storage } from '../storage/types.js';
import { HttpProblem, problemKinds } from './problem.js';

/** The window RATE_LIMIT_PER_MINUTE counts in, in seconds (RATE_LIMIT_WINDOW_SECONDS in tests). */
export const rateLimitWindowSeconds = 60;

/** The policy's name in the RateLimit header fields: each institution has its own budget. */
const policyName = 'per-institution';

/**
 * The optional per-institution rate limit (RATE_LIMIT_PER_MINUTE; spec Assumptions, "Rate limits"),
 * placed after authentication: only verified requests count, each against the budget of the
 * institution that signed it, so nobody can spend another institution's budget. The count is the
 * storage's (`Storage.rateLimiter`): in PostgreSQL, shared by every server process on the
 * database, so N processes allow the limit in total, not N times it.
 *
 * Every answer to a request counted here, whatever its status, carries the IETF HTTPAPI draft's
 * header fields (the same as express-rate-limit's `draft-8`), in structured-field syntax:
 *
 *     RateLimit-Policy: "per-institution";q=<limit>;w=60
 *     RateLimit: "per-institution";r=<requests left in the window>;t=<seconds until it resets>
 *
 * Over the limit, the spec's `429` problem (`TooManyRequests`) with `Retry-After`: the same wait
 * as `t`, at least 1 s. A database that cannot count fails the request as unavailable (503 with
 * `Retry-After: 1`, no RateLimit fields), never lets it through uncounted.
 *
 * @see https://datatracker.ietf.org/doc/draft-ietf-httpapi-ratelimit-headers/
 */
export function rateLimitPerInstitution(
  storage: Pick<Storage, 'rateLimiter'>,
  perMinute: number,
  windowSeconds = rateLimitWindowSeconds,
): RequestHandler {
  const limiter = storage.rateLimiter(perMinute, windowSeconds);
  const policy = `"${policyName}";q=${perMinute};w=${windowSeconds}`;
  const window = windowSeconds === 60 ? 'a minute' : `${windowSeconds} s`;
  return async (_req, res, next) => {
    const institution = res.locals.institution;
    if (!institution) throw new Error('The rate limit ran before authentication.');
    const counted = await limiter.consume(institution.id);
    const seconds = Math.ceil(counted.resetsInMs / 1000);
    res.setHeader('RateLimit-Policy', policy);
    res.setHeader('RateLimit', `"${policyName}";r=${counted.remaining};t=${seconds}`);
    if (counted.allowed) return next();
    next(
      new HttpProblem(
        problemKinds.rateLimited,
        `This institution sent more than ${perMinute} requests in ${window}; retry after the number of seconds in Retry-After.`,
        undefined,
        { 'Retry-After': String(Math.max(1, seconds)) },
      ),
    );
  };
}
