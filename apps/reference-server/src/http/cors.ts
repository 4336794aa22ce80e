import type { RequestHandler } from 'express';

/**
 * What a listed origin may send: the interface's two methods, signed (the Authorization header,
 * and the RFC 9421 message signature with the body's digest), with a JSON body.
 */
const allowedMethods = 'POST, PUT';
const allowedHeaders = 'Authorization, Content-Type, Signature-Input, Signature, Content-Digest';
/**
 * What a listed origin may read beyond the CORS-safelisted headers: the wait of a 429 or a 503,
 * and the institution's budget when a rate limit is set (http/rate-limit.ts).
 */
const exposedHeaders = 'Retry-After, RateLimit, RateLimit-Policy';
/** How long a browser may reuse a preflight's answer, in seconds. */
const preflightMaxAgeSeconds = '600';

/**
 * CORS for a docs page hosted on another origin (spec: Assumptions,
 * "CORS"), installed only when `CORS_ALLOW_ORIGINS` lists origins. The docs and their console
 * are normally served by this server itself (same origin, no CORS needed).
 *
 * A request from a listed origin gets `Access-Control-Allow-Origin` naming that origin on every
 * answer (errors included, so the page can read the problem); its preflight (`OPTIONS` with
 * `Access-Control-Request-Method`) answers `204` allowing `POST` and `PUT` with `Authorization`,
 * `Content-Type`, `Signature-Input`, `Signature` and `Content-Digest`. Any other origin gets no CORS header at all, so its browser refuses the
 * call; its preflight goes on to the route, which answers `405` as for any `OPTIONS`. No
 * credentials (cookies) are involved: the signature is the authentication.
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
