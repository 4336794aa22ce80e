import { routedTarget, type TargetUri } from '@institution-api/signing/node';
import type { RequestHandler } from 'express';
import { HttpProblem, problemKinds } from './problem.js';

declare global {
  namespace Express {
    interface Locals {
      /**
       * Set by {@link routeOnTarget}: the target URI the request is routed by, which a message
       * signature's derived components are computed from.
       */
      target?: TargetUri;
    }
  }
}

/**
 * The request's target, before anything routes on it (RFC 9112 §3.2, §3.3; spec: "Assumptions",
 * message signatures), by `@institution-api/signing`'s `routedTarget`, as the mock derives it:
 * - an absolute-form target (`POST http://host/api/v1/external/users`, which a server must accept)
 *   is served as its origin-form (`/api/v1/external/users`): `req.url` and `req.originalUrl`
 *   become it, so routing, validation, the access log, the metrics and a problem's `instance` all
 *   see the path;
 * - `res.locals.target` is the target URI a message signature is checked against: the path and
 *   query as routed, the scheme and authority of `publicOrigin` (PUBLIC_ORIGIN) when configured,
 *   else of an absolute-form target, else of the `Host` header;
 * - a `Host` that is not an authority alone (`host/users/a#`, `user@host`), two of them, none on
 *   HTTP/1.1, a fragment or another scheme in the target: `400 malformed-request`, so a path
 *   smuggled in `Host` can never reach what a signature covers.
 */
export function routeOnTarget(publicOrigin?: string): RequestHandler {
  return (req, res, next) => {
    const routed = routedTarget({
      method: req.method,
      target: req.url,
      host: req.headersDistinct.host,
      scheme: req.protocol === 'https' ? 'https' : 'http',
      hostRequired: req.httpVersion !== '1.0',
      publicOrigin,
      connection: req.socket,
    });
    if (routed.refused) {
      next(new HttpProblem(problemKinds.malformedRequest, routed.detail));
      return;
    }
    req.url = routed.originForm;
    req.originalUrl = routed.originForm;
    res.locals.target = routed.target;
    next();
  };
}
