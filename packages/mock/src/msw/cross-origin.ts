/**
 * CORS as the browser would apply it against the service, for the MSW handlers: MSW's Service
 * Worker answers a page's request before the browser checks CORS, so without this a page passes
 * against the mock a cross-origin call the service refuses (spec: Assumptions, "CORS"; the
 * reference server's `CORS_ALLOW_ORIGINS`).
 *
 * @module
 */

/**
 * The check of `allowedOrigins` (as the reference server's `CORS_ALLOW_ORIGINS`: origins as
 * browsers send them, `https://docs.example.com`) for requests to `baseUrl`: whether a request
 * comes from a page the service would refuse, one whose origin is neither the base URL's own nor
 * listed. The page's origin is the request's `Origin` header, else the page the handlers run in
 * (`location.origin`: a browser's Service Worker hands MSW the request without its `Origin`); a
 * request with neither comes from no page (Node), which CORS does not concern.
 * Throws a `TypeError` naming the entry that is not an origin.
 */
export function crossOriginRefusal(
  baseUrl: string,
  allowedOrigins: readonly string[],
): (request: Request) => boolean {
  const allowed = new Set(
    allowedOrigins.map((origin, index) => {
      const url = URL.canParse(origin) ? new URL(origin) : undefined;
      if ((url?.protocol !== 'http:' && url?.protocol !== 'https:') || url.origin !== origin) {
        throw new TypeError(
          `allowedOrigins[${index}] must be an http or https origin as browsers send it (e.g. https://docs.example.com: no path, no trailing slash), not ${JSON.stringify(origin)}`,
        );
      }
      return origin;
    }),
  );
  allowed.add(new URL(baseUrl).origin);
  return (request) => {
    const page = request.headers.get('Origin') ?? globalThis.location?.origin;
    return page !== undefined && !allowed.has(page);
  };
}
