/**
 * Request signing ("Authentication" section of the spec). The spec models `Authorization` as
 * an apiKey security scheme, not a header parameter, so the generated types never ask callers
 * for it: the client adds it, and so does this openapi-fetch middleware for the `raw` client
 * and for callers' own clients.
 *
 * The HMAC comes from `@institution-api/signing/signer`, which the runtime resolves through
 * conditional exports: a synchronous `node:crypto` HMAC under the `node` condition, Web Crypto
 * elsewhere. Both give the same signatures (the published test vectors).
 *
 * @module
 */
import {
  type Credentials,
  formatAuthorization,
  type SignatureOptions,
} from '@institution-api/signing';
import { createSigner } from '@institution-api/signing/signer';
import type { Middleware } from 'openapi-fetch';

/** Credentials plus the hash and encoding the service is configured for. */
export interface SigningMiddlewareOptions extends Credentials {
  /** Must match the service's configuration; default SHA-256, lowercase hex. */
  signature?: SignatureOptions | undefined;
}

/**
 * The `Authorization` value for a message, `<publicKey>:<signature>`: a string where the HMAC
 * is synchronous (`node:crypto`), a Promise of it where it is not (Web Crypto).
 */
export type Authorize = (message: string | Uint8Array) => string | Promise<string>;

/**
 * Checks the credentials once, so a configuration mistake surfaces at start-up rather than on
 * the first request: throws for a public key the service could never accept, an empty secret
 * or unknown signature options (never with the secret in the message).
 */
export function createAuthorize({
  publicKey,
  secretKey,
  signature: options,
}: SigningMiddlewareOptions): Authorize {
  // Validates the public key (the '0' only stands in for a signature).
  formatAuthorization(publicKey, '0');
  const signer = createSigner(secretKey, options);
  const prefix = `${publicKey}:`;
  return (message) => {
    const signature = signer(message);
    return typeof signature === 'string'
      ? prefix + signature
      : signature.then((value) => prefix + value);
  };
}

/**
 * Adds `Authorization: <publicKey>:<signature>` to every request, replacing any already set.
 * openapi-fetch runs `onRequest` after serializing the body, so the middleware reads those
 * exact bytes once, signs them, and returns a new `Request` carrying the same bytes (never
 * re-serialized), which is what the service verifies. A request without a body (GET, or
 * anything else sent without one) is signed over the JSON-stringified query object instead, as
 * the interface document describes for GET (`{}` when there is none), and keeps its `Request`.
 *
 * Throws at creation for unusable credentials (see {@link createAuthorize}).
 */
export function createSigningMiddleware(options: SigningMiddlewareOptions): Middleware {
  return signingMiddleware(createAuthorize(options));
}

/** {@link createSigningMiddleware} on an existing {@link Authorize}. */
export function signingMiddleware(authorize: Authorize): Middleware {
  return {
    async onRequest({ request, params }) {
      const body = request.body === null ? null : new Uint8Array(await request.arrayBuffer());
      const authorization = authorize(body ?? JSON.stringify(params.query ?? {}));
      // A Request made with `new Request` (openapi-fetch's) has mutable headers.
      request.headers.set('Authorization', await authorization);
      // The bytes just signed become the body of the new Request, so nothing can change them.
      return body === null ? undefined : new Request(request, { body });
    },
  };
}
