/**
 * Request signing ("Authentication" section of the spec). Every request carries both signatures
 * the spec's security schemes describe:
 * - `Authorization: <publicKey>:<signature>`, the HMAC of the exact body bytes (security scheme
 *   `InstitutionSignature`);
 * - RFC 9421 HTTP Message Signatures (`MessageSignature`): `Content-Digest` of the body,
 *   `Signature-Input` and `Signature` covering the method, the path and that digest, with a
 *   `created` time and a nonce, so a captured request cannot be replayed or sent to another path
 *   where the service requires them. Each request (and each retry) gets a new `created` and
 *   nonce. `messageSignatures: false` leaves them out, for a service that refuses unknown fields.
 * Callers never set them: the client adds them, and so does this openapi-fetch middleware for
 * the `raw` client and for callers' own clients.
 *
 * The MACs come from `@institution-api/signing/signer`, which the runtime resolves through
 * conditional exports: synchronous `node:crypto` under the `node` condition, Web Crypto
 * elsewhere. Both give the same signatures (the published test vectors).
 *
 * @module
 */
import {
  type Credentials,
  formatAuthorization,
  type MessageSignatureHeaders,
  type SignatureOptions,
} from '@institution-api/signing';
import {
  createMessageSigner,
  createSigner,
  type MessageSigner,
} from '@institution-api/signing/signer';
import type { Middleware } from 'openapi-fetch';
import { signingUnavailable } from './errors.js';

/** Credentials plus the hash and encoding the service is configured for. */
export interface SigningMiddlewareOptions extends Credentials {
  /** Must match the service's configuration; default SHA-256, lowercase hex. */
  signature?: SignatureOptions | undefined;
  /**
   * Whether to add RFC 9421 message signatures (`Content-Digest`, `Signature-Input`,
   * `Signature`; spec: security scheme `MessageSignature`) beside `Authorization`. Default
   * `true`; `false` sends `Authorization` alone, for a service that refuses header fields it
   * does not know. A key pair the service requires message signatures of refuses requests
   * without them.
   */
  messageSignatures?: boolean | undefined;
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

/** Both signers of a key pair, checked once: `signMessage` is undefined when turned off. */
export interface RequestSigning {
  authorize: Authorize;
  /** A new `created` and nonce on each call; undefined with `messageSignatures: false`. */
  signMessage: MessageSigner | undefined;
}

/**
 * {@link createAuthorize} and, unless `messageSignatures` is `false`, a message signer keyed
 * with the same pair (`keyid` = the public key). Throws at creation for unusable credentials.
 */
export function createRequestSigning(options: SigningMiddlewareOptions): RequestSigning {
  const authorize = createAuthorize(options);
  const signMessage =
    options.messageSignatures === false
      ? undefined
      : createMessageSigner({ keyId: options.publicKey, secretKey: options.secretKey });
  return { authorize, signMessage };
}

/**
 * Sets a message signature's fields on `headers`, replacing any already there (a request
 * without a body has no `Content-Digest`, so one already set is removed).
 */
export function setMessageSignature(headers: Headers, fields: MessageSignatureHeaders): void {
  const digest = fields['content-digest'];
  if (digest === undefined) headers.delete('content-digest');
  else headers.set('content-digest', digest);
  headers.set('signature-input', fields['signature-input']);
  headers.set('signature', fields.signature);
}

/**
 * Signs every request both ways (see the module's description), replacing an `Authorization`,
 * `Signature-Input`, `Signature` or `Content-Digest` already set.
 * openapi-fetch runs `onRequest` after serializing the body, so the middleware reads those
 * exact bytes once, signs them, and returns a new `Request` carrying the same bytes (never
 * re-serialized), which is what the service verifies. A request without a body (GET, or
 * anything else sent without one) is signed over the JSON-stringified query object instead, as
 * the spec's `InstitutionSignature` describes for GET (`{}` when there is none), and keeps its `Request`.
 * The message signature covers the request's method and its URL's path, and the body's
 * `Content-Digest` when it has one. Middleware that changes the request after this one breaks
 * its signatures.
 *
 * Throws at creation for unusable credentials (see {@link createAuthorize}).
 */
export function createSigningMiddleware(options: SigningMiddlewareOptions): Middleware {
  return signingMiddleware(createRequestSigning(options));
}

/** {@link createSigningMiddleware} on existing signers. */
export function signingMiddleware({ authorize, signMessage }: RequestSigning): Middleware {
  return {
    async onRequest({ request, params }) {
      const body = request.body === null ? null : new Uint8Array(await request.arrayBuffer());
      let authorization: string;
      try {
        authorization = await authorize(body ?? JSON.stringify(params.query ?? {}));
      } catch (error) {
        throw signingUnavailable(error);
      }
      // A Request made with `new Request` (openapi-fetch's) has mutable headers.
      request.headers.set('Authorization', authorization);
      if (signMessage !== undefined) {
        const { method, url } = request;
        const fields = await signMessage({ method, url, body: body ?? undefined });
        setMessageSignature(request.headers, fields);
      }
      // The bytes just signed become the body of the new Request, so nothing can change them.
      return body === null ? undefined : new Request(request, { body });
    },
  };
}
