import { contractHeaderFields } from '@institution-api/runtime/http';
import { openapiDocument } from '@institution-api/types';
import type { RequestHandler } from 'express';

const fields = contractHeaderFields(openapiDocument);
/**
 * This server's own request id (http/request-context.ts): taken from a caller that sends one
 * (the client's `headers` option), echoed in every answer. Not a field of the contract.
 */
const requestIdField = 'X-Request-Id';
/** What a listed origin may send: the interface's two methods. */
const allowedMethods = 'POST, PUT';
/**
 * The request header fields a listed origin may send: every one the spec declares (the signature's
 * `Authorization`, `Content-Type`, and the header parameters: the RFC 9421 message signature's
 * fields and the sandbox's `Prefer`), and the request id. A field missing here fails the call in
 * the browser as a network error, before it reaches the server.
 */
const allowedHeaders = [...fields.request, requestIdField].join(', ');
/**
 * What a listed origin may read beyond the CORS-safelisted headers: the request id, and every
 * field the spec documents on an answer (the wait of a 429 or a 503, the institution's budget
 * when a rate limit is set), except CORS's own.
 */
const exposedHeaders = [
  requestIdField,
  ...fields.response.filter((name) => !/^access-control-/i.test(name)),
].join(', ');
/** How long a browser may reuse a preflight's answer, in seconds. */
const preflightMaxAgeSeconds = '600';

/**
 * CORS for a page on another origin (a docs page hosted elsewhere, a page calling through the
 * client) (spec: Assumptions, "CORS"), installed only when `CORS_ALLOW_ORIGINS` lists origins.
 * The docs and their console are normally served by this server itself (same origin, no CORS
 * needed).
 *
 * A request from a listed origin gets `Access-Control-Allow-Origin` naming that origin on every
 * answer (errors included, so the page can read the problem); its preflight (`OPTIONS` with
 * `Access-Control-Request-Method`) answers `204` allowing `POST` and `PUT` with
 * `allowedHeaders`, and every other answer exposes `exposedHeaders`. Any other origin gets no
 * CORS header at all, so its browser refuses the call; its preflight goes on to the route, which
 * answers `405` as for any `OPTIONS`. No credentials (cookies) are involved: the signature is the
 * authentication.
 *
 * @see https://fetch.spec.whatwg.org/#http-cors-protocol
 */
export function corsForOrigins(origins: readonly string[]): RequestHandler {
  const allowed = new Set(origins);
  return (req, res, next) => {
    // The answer depends on Origin, so a shared cache must not serve one origin's to another.
    res.vary('Origin');
    const origin = req.get('Origin');
    if (origin === undefined || !allowed.has(origin)) return next();

    res.set('Access-Control-Allow-Origin', origin);
    if (req.method === 'OPTIONS' && req.get('Access-Control-Request-Method') !== undefined) {
      res
        .set({
          'Access-Control-Allow-Methods': allowedMethods,
          'Access-Control-Allow-Headers': allowedHeaders,
          'Access-Control-Max-Age': preflightMaxAgeSeconds,
        })
        .status(204)
        .end();
      return;
    }
    res.set('Access-Control-Expose-Headers', exposedHeaders);
    next();
  };
}
