import type { RequestHandler } from 'express';
import { type RateLimitInfo, rateLimit } from 'express-rate-limit';
import { HttpProblem, problemKinds } from './problem.js';

/**
 * The optional per-institution rate limit (RATE_LIMIT_PER_MINUTE; DECISIONS.md "rate limit"),
 * placed after authentication: only verified requests count, each against the budget of the
 * institution that signed it, so nobody can spend another institution's budget. Over the limit,
 * the spec's `429` problem (`TooManyRequests`) with `Retry-After`: the seconds until the window
 * of one minute resets. The counts live in this process's memory.
 */
export function rateLimitPerInstitution(perMinute: number): RequestHandler {
  return rateLimit({
    windowMs: 60_000,
    limit: perMinute,
    keyGenerator: (_req, res) => {
      const institution = res.locals.institution;
      if (!institution) throw new Error('The rate limit ran before authentication.');
      return institution.id;
    },
    // The spec documents Retry-After only; no X-RateLimit-* or draft RateLimit-* headers.
    legacyHeaders: false,
    standardHeaders: false,
    handler: (req, _res, next) => {
      // express-rate-limit writes Retry-After only beside the X-RateLimit-* or RateLimit-* headers
      const resetTime = (req as { rateLimit?: RateLimitInfo }).rateLimit?.resetTime;
      const seconds = resetTime ? Math.ceil((resetTime.getTime() - Date.now()) / 1000) : 60;
      next(
        new HttpProblem(
          problemKinds.rateLimited,
          `This institution sent more than ${perMinute} requests in a minute; retry after the number of seconds in Retry-After.`,
          undefined,
          { 'Retry-After': String(Math.max(1, seconds)) },
        ),
      );
    },
    // Its checks are about keys derived from client IP addresses; this key is the institution.
    validate: false,
  });
}
