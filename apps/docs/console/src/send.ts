/**
 * Signing and sending one request of the console: the UTF-8 bytes of the editor's text, signed
 * both ways with `@institution-api/signing` (Web Crypto): `Authorization` over the bytes and an
 * RFC 9421 message signature over the method, the URL sent to and the bytes' `Content-Digest`
 * (the spec's security schemes and "Signing requests"), and sent as they are, to the base URL and
 * nowhere else.
 *
 * @module
 */
import { formatAuthorization, sign, signMessage } from '@institution-api/signing';
import type { Keys } from './session.js';
import type { ConsoleOperation } from './spec-types.js';

const utf8 = new TextEncoder();

/** The bytes that are signed and sent for an editor's text. */
export function bodyBytes(text: string): Uint8Array<ArrayBuffer> {
  return utf8.encode(text);
}

/**
 * The `Authorization` value for these bytes: `<publicKey>:<HMAC-SHA256 hex>`. Throws (without
 * the key in the message) for a public key the server could never accept, or an empty secret.
 */
export async function authorization(keys: Keys, bytes: Uint8Array): Promise<string> {
  if (keys.secretKey === '') throw new TypeError('the secret key is empty');
  // Checked before signing, so a bad public key is reported rather than a signature computed.
  formatAuthorization(keys.publicKey, '0');
  return formatAuthorization(keys.publicKey, await sign(bytes, keys.secretKey));
}

/** The header fields that sign one request, as sent (names as the spec writes them). */
export interface SignedHeaders {
  Authorization: string;
  'Content-Digest': string;
  'Signature-Input': string;
  Signature: string;
}

/**
 * Both signatures of a request of `method` to `url` with these bytes: `Authorization`, and a
 * message signature with a new `created` and nonce on each call (a nonce is accepted once, so
 * every Send signs anew). Throws as {@link authorization} does.
 */
export async function signedHeaders(
  keys: Keys,
  method: string,
  url: string,
  bytes: Uint8Array,
): Promise<SignedHeaders> {
  const value = await authorization(keys, bytes);
  const fields = await signMessage(
    { method, url, body: bytes },
    { keyId: keys.publicKey, secretKey: keys.secretKey },
  );
  return {
    Authorization: value,
    'Content-Digest': fields['content-digest'] ?? '',
    'Signature-Input': fields['signature-input'],
    Signature: fields.signature,
  };
}

/**
 * The URL of an operation under a base URL, each path parameter percent-encoded. Throws naming
 * the parameter when one is empty.
 */
export function operationUrl(
  baseUrl: string,
  operation: ConsoleOperation,
  parameters: Record<string, string>,
): string {
  const path = operation.path.replace(/\{([^}]+)\}/g, (_match, name: string) => {
    const value = parameters[name]?.trim() ?? '';
    if (value === '') throw new TypeError(`${name} is empty`);
    return encodeURIComponent(value);
  });
  return `${baseUrl.replace(/\/+$/, '')}${path}`;
}

/** What came back: everything the console shows. */
export interface Answer {
  status: number;
  statusText: string;
  headers: [string, string][];
  contentType: string | null;
  text: string;
  ms: number;
}

/**
 * Sends the signed bytes and reads the whole answer. No cookies, no referrer, no cache, and a
 * redirect is an error rather than a request to wherever it points. Rejects only when no answer
 * came (network, policy, CORS).
 */
export async function send(
  method: string,
  url: string,
  bytes: Uint8Array<ArrayBuffer>,
  signed: SignedHeaders,
): Promise<Answer> {
  const started = performance.now();
  const response = await fetch(url, {
    method,
    headers: { ...signed, 'Content-Type': 'application/json' },
    body: bytes,
    credentials: 'omit',
    cache: 'no-store',
    redirect: 'error',
    referrerPolicy: 'no-referrer',
  });
  const text = await response.text();
  return {
    status: response.status,
    statusText: response.statusText,
    headers: [...response.headers],
    contentType: response.headers.get('content-type'),
    text,
    ms: Math.round(performance.now() - started),
  };
}
