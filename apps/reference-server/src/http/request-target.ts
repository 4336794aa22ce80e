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
      /**
       * Set by {@link routeOnTarget} when the `Host` header is not one authority alone: the
       * sentence of the `400` that {@link refuseMalformedHost} answers.
       */
      malformedHost?: string;
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
 * - a fragment or another scheme in the target: `400 malformed-request`;
 * - a `Host` that is not an authority alone (`host/users/a#`, `user@host`), two of them or none on
 *   HTTP/1.1 is left out of the target (the connection's address is the authority), so a path
 *   smuggled in `Host` never reaches what a signature covers: a signature made for another
 *   request gets the one `401`, like any other that does not verify. The request is then refused
 *   `400` by {@link refuseMalformedHost}: for the two operations once authentication passed, for
 *   anything else at once.
 */
export function routeOnTarget(publicOrigin?: string): RequestHandler {
  return (req, res, next) => {
    const routed = routedTarget({
      method: req.method,
      target: req.url,
      host: hostLines(req.rawHeaders),
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
    if (routed.malformedHost !== undefined) res.locals.malformedHost = routed.malformedHost;
    next();
  };
}

/**
 * `400 malformed-request` for a request whose `Host` {@link routeOnTarget} found malformed (RFC
 * 9112 §3.2); every other request goes on.
 */
export const refuseMalformedHost: RequestHandler = (_req, res, next) => {
  const detail = res.locals.malformedHost;
  next(detail === undefined ? undefined : new HttpProblem(problemKinds.malformedRequest, detail));
};

/**
 * The value of each `Host` field line, in order, read from the raw header lines: `headersDistinct`
 * would give them too, but builds every header's list on each request to do it.
 */
function hostLines(rawHeaders: readonly string[]): string[] {
  const hosts: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] as string;
    if (name.length === 4 && name.toLowerCase() === 'host') hosts.push(rawHeaders[i + 1] as string);
  }
  return hosts;
}
