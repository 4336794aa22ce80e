/**
 * The one signed request of the tests: the seed's `Authorization: <publicKey>:<HMAC>` over the
 * exact body bytes sent (spec: security scheme `InstitutionSignature`) and, unless told otherwise,
 * an RFC 9421 message signature beside it over `@method`, `@path` and `content-digest`, with
 * `created` and a fresh nonce (spec: security scheme `MessageSignature`), both made by
 * `@institution-api/signing` as every client makes them. Its options are what tests change on
 * purpose: another secret, other bytes, another URL, components, times, no message signature.
 * The result is `fetch`'s arguments (`fetch(request.url, request)`) and `sendRaw`'s fields.
 */
import {
  formatAuthorization,
  type MessageSignatureOptions,
  type SignatureOptions,
  signMessageSync,
  signSync,
} from '@institution-api/signing/node';

/** A key pair as the service issues it: the public key names the caller, the secret signs. */
export interface KeyPair {
  publicKey: string;
  secretKey: string;
}

/** The exact bytes of a body: a string is sent as its UTF-8 bytes. */
export type BodyBytes = string | Uint8Array<ArrayBuffer>;

/** Bytes to sign, when they are not those sent. */
type SignedBytes = string | Uint8Array;

/** What a test changes of the `Authorization` header. */
export interface AuthorizationChanges extends SignatureOptions {
  /** The public key the header names; the key pair's by default. */
  publicKey?: string;
  /** The secret the HMAC is made with (a wrong one); the key pair's by default. */
  secretKey?: string;
  /** The bytes the HMAC is made over; the body sent by default. */
  signedBody?: SignedBytes;
}

/** What a test changes of the message signature (`created`, `nonce`, `components`, …). */
export interface MessageSignatureChanges extends Partial<MessageSignatureOptions> {
  /** The URL it is made for; the URL the request is sent to by default. */
  url?: string | URL;
  /** The method it is made for; the request's by default. */
  method?: string;
  /** The bytes its `Content-Digest` is made of; the body sent by default. */
  signedBody?: SignedBytes;
}

/** Options of {@link signedRequest}. */
export interface SignedRequestOptions {
  /** A value is sent as `JSON.stringify(value)`; a string or bytes exactly as given; none when absent. */
  body?: unknown;
  /** Header fields set last, replacing the made ones of the same name (any case). */
  headers?: Record<string, string>;
  /** Changes of the `Authorization` header; `false`: none. */
  authorization?: false | AuthorizationChanges;
  /** Changes of the message signature; `false`: none, as a client of the seed alone sends. */
  messageSignature?: false | MessageSignatureChanges;
}

/** A request ready to send: `fetch(request.url, request)`, or `sendRaw` with its fields. */
export interface SignedRequest {
  method: string;
  url: string;
  /** Lowercase names: `content-type` (with a body), `authorization`, the message signature's. */
  headers: Record<string, string>;
  body: BodyBytes | undefined;
}

/** The bytes sent for `body`: a value as `JSON.stringify` writes it, a string or bytes as given. */
export function bodyBytes(body: unknown): BodyBytes | undefined {
  if (body === undefined || typeof body === 'string') return body;
  if (body instanceof Uint8Array) return new Uint8Array(body);
  return JSON.stringify(body);
}

/** The `Authorization` header value of `keys` over `bytes`, as {@link signedRequest} makes it. */
export function authorizationHeader(
  keys: KeyPair,
  bytes: SignedBytes,
  changes: AuthorizationChanges = {},
): string {
  const {
    publicKey = keys.publicKey,
    secretKey = keys.secretKey,
    signedBody,
    ...options
  } = changes;
  return formatAuthorization(publicKey, signSync(signedBody ?? bytes, secretKey, options));
}

/**
 * `method url` with `options.body`, signed by `keys` both ways (`null`: not signed at all), with
 * `content-type: application/json` when it has a body. `url` is absolute when a message
 * signature is made; without one it may be a request-target alone (for `sendRaw`).
 */
export function signedRequest(
  method: string,
  url: string | URL,
  keys: KeyPair | null,
  options: SignedRequestOptions = {},
): SignedRequest {
  const body = bodyBytes(options.body);
  const headers: Record<string, string> =
    body === undefined ? {} : { 'content-type': 'application/json' };
  if (keys && options.authorization !== false) {
    headers.authorization = authorizationHeader(keys, body ?? '', options.authorization);
  }
  if (keys && options.messageSignature !== false) {
    const {
      url: signedUrl,
      method: signedMethod,
      signedBody,
      ...changes
    } = options.messageSignature ?? {};
    const signedBytes = signedBody ?? body;
    Object.assign(
      headers,
      signMessageSync(
        {
          method: signedMethod ?? method,
          url: signedUrl ?? url,
          ...(signedBytes === undefined ? {} : { body: signedBytes }),
        },
        { keyId: keys.publicKey, secretKey: keys.secretKey, ...changes },
      ),
    );
  }
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    headers[name.toLowerCase()] = value;
  }
  return { method, url: String(url), headers, body };
}
