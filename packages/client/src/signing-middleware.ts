/**
 * Request signing as an openapi-fetch middleware ("Authentication" section of the spec). The
 * spec models `Authorization` as an apiKey security scheme, not a header parameter, so the
 * generated types never ask callers for it: this middleware is what adds it.
 *
 * @module
 */
import {
  type Credentials,
  formatAuthorization,
  type SignatureOptions,
  sign,
  signQuery,
} from '@institution-api/signing';
import type { Middleware } from 'openapi-fetch';

/** Credentials plus the hash and encoding the service is configured for. */
export interface SigningMiddlewareOptions extends Credentials {
  /** Must match the service's configuration; default SHA-256, lowercase hex. */
  signature?: SignatureOptions | undefined;
}

/**
 * Adds `Authorization: <publicKey>:<signature>` to every request. openapi-fetch runs
 * `onRequest` after serializing the body, so the HMAC covers the exact bytes that will be sent
 * (read once and reused as the body, never re-serialized), which is what the service
 * verifies. A request without a body (GET, or anything else sent without one) is signed over
 * the JSON-stringified query object instead, as the interface document describes for GET
 * (`{}` when there is none).
 *
 * Throws at creation for a public key the service could never accept or an empty secret, so a
 * configuration mistake surfaces at start-up rather than on the first request.
 */
export function createSigningMiddleware({
  publicKey,
  secretKey,
  signature: options,
}: SigningMiddlewareOptions): Middleware {
  // Validates the public key (the '0' only stands in for a signature).
  formatAuthorization(publicKey, '0');
  if (typeof secretKey !== 'string' || secretKey.length === 0) {
    throw new TypeError('secretKey must be a non-empty string');
  }
  return {
    async onRequest({ request, params }) {
      const body = request.body === null ? null : await request.arrayBuffer();
      const signature =
        body === null
          ? (await signQuery(params.query ?? {}, secretKey, options)).signature
          : await sign(new Uint8Array(body), secretKey, options);
      const headers = new Headers(request.headers);
      headers.set('Authorization', formatAuthorization(publicKey, signature));
      // The bytes just signed become the body of the new Request, so nothing can change them.
      return new Request(request, { body, headers });
    },
  };
}
