/**
 * Checks the RFC 9421 message signature of a request as sent, with the verifier the reference
 * server uses (`@institution-api/signing/node`), over the exact method, URL and body bytes.
 */
import type { IncomingHttpHeaders } from 'node:http';
import {
  type MessageSignatureVerdict,
  verifyMessageSignatureSync,
} from '@institution-api/signing/node';
import { testKeys } from './test-keys.ts';

/** A request as a test saw it on the wire: a fetch's (Headers) or a server's (Node's headers). */
export interface SeenRequest {
  method: string;
  /** The absolute URL it was sent to. */
  url: string;
  headers: Headers | IncomingHttpHeaders;
  bytes: Uint8Array;
}

function headerOf(headers: Headers | IncomingHttpHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The verdict on `request`'s message signature for {@link testKeys} (or `keys`). */
export function verdictOf(
  request: SeenRequest,
  overrides: { method?: string; url?: string; bytes?: Uint8Array; now?: number } = {},
  keys: { publicKey: string; secretKey: string } = testKeys,
): MessageSignatureVerdict {
  return verifyMessageSignatureSync(
    {
      method: overrides.method ?? request.method,
      url: overrides.url ?? request.url,
      header: (name) => headerOf(request.headers, name),
      body: overrides.bytes ?? request.bytes,
    },
    {
      keyId: keys.publicKey,
      secretKey: keys.secretKey,
      ...(overrides.now !== undefined && { now: overrides.now }),
    },
  );
}
