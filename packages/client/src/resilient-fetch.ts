/**
 * The `fetch` the `raw` openapi-fetch client sends with: each attempt bounded by the client's
 * timeout, failed attempts retried (see `attempts.ts`). It sits below the signing middleware,
 * so it receives the signed `Request` and every attempt re-sends the very same bytes and
 * `Authorization` header (a re-serialized body could differ and would no longer match its
 * signature); each retry gets a message signature of its own (a new `created` and nonce: the
 * service accepts a nonce once). `createUser`/`updateUser` do not go through here: they sign
 * before openapi-fetch builds the request and run the same retry loop around it.
 *
 * @module
 */
import type { MessageSigner } from '@institution-api/signing/signer';
import { sendWithRetries } from './attempts.js';
import type { RetryOptions } from './retry-policy.js';
import { setMessageSignature } from './signing-middleware.js';

/**
 * The `fetch` the client sends with, called like the standard `fetch` (any `typeof fetch`
 * fits): `createUser` and `updateUser` call `fetch(url, { method, headers, body, signal })`
 * with the signed body as a string, and the `raw` client calls `fetch(request, { signal })`
 * with openapi-fetch's `Request`. A URL and an init spare a `Request` per attempt: the
 * standard `fetch` builds one from its arguments anyway, a second one when handed a `Request`.
 * The attempt's `signal` (its timeout and the caller's abort) always comes in `init`; a `fetch`
 * that ignores it still has its attempts ended on time (the client stops waiting), but cannot
 * have the connection cancelled.
 */
export type FetchLike = (
  input: string | Request,
  init: RequestInit & { signal: AbortSignal },
) => Promise<Response>;

/** Settings of {@link createResilientFetch}, already validated by the client. */
export interface ResilientFetchOptions {
  fetch: FetchLike;
  /** Budget of one attempt, from sending to the last byte of the answer. */
  timeoutMs: number;
  retry: Required<RetryOptions>;
  /** Signs each retry anew; the first attempt carries the signing middleware's signature. */
  signMessage?: MessageSigner | undefined;
}

/**
 * Wraps `fetch` for openapi-fetch: the body is read once and every attempt sends those bytes;
 * the whole answer is read inside the attempt, so that a timeout or a reset while the body
 * streams in is a failed attempt (retried, classified) rather than an error later. Failures
 * are thrown as `UsersClientError`; answers, including the last retryable one, are returned.
 */
export function createResilientFetch({
  fetch,
  timeoutMs,
  retry,
  signMessage,
}: ResilientFetchOptions): (request: Request) => Promise<Response> {
  return async function resilientFetch(request) {
    const body = request.body === null ? null : await request.arrayBuffer();
    let attempts = 0;
    return sendWithRetries({
      send: async (signal) => {
        const attempt = new Request(request, { body });
        if (attempts++ > 0 && signMessage !== undefined) {
          const { method, url } = request;
          const bytes = body === null ? undefined : new Uint8Array(body);
          const fields = await signMessage({ method, url, body: bytes });
          setMessageSignature(attempt.headers, fields);
        }
        return buffered(await fetch(attempt, { signal }));
      },
      responseOf: (response) => response,
      timeoutMs,
      retry,
      caller: request.signal,
    });
  };
}

/** The same answer with its body already received. */
async function buffered(response: Response): Promise<Response> {
  if (response.body === null) return response;
  const { status, statusText, headers } = response;
  return new Response(await response.arrayBuffer(), { status, statusText, headers });
}
