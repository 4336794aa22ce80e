import type { RequestHandler } from 'express';
import { HttpProblem, problemKinds } from './problem.js';

/**
 * The last route of a known path: any method it does not serve answers 405 with `Allow`
 * (RFC 9110 section 15.5.6), before authentication, since it reveals nothing.
 */
export function methodNotAllowed(allowed: readonly string[]): RequestHandler {
  return (req, _res, next) => {
    next(
      new HttpProblem(
        problemKinds.methodNotAllowed,
        `${req.method} is not allowed here; use ${allowed.join(' or ')}.`,
        undefined,
        { Allow: allowed.join(', ') },
      ),
    );
  };
}

/** After every route: no route has this path (spec `Problem` table: `not-found`). */
export function notFound(): RequestHandler {
  return (req, _res, next) => {
    next(new HttpProblem(problemKinds.notFound, `No route matches ${req.method} ${req.path}.`));
  };
}
