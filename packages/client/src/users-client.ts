/**
 * The users client: the two operations of the interface (spec: `createUser`, `updateUser`) on a
 * typed openapi-fetch client that signs every request, bounds each attempt with a timeout and
 * retries what is safe to retry, answering in one canonical {@link User} shape.
 *
 * @module
 */
import type { MessageSignatureHeaders, SignatureOptions } from '@institution-api/signing';
import type { paths, UserCreated, UserInput, UserUpdated } from '@institution-api/types';
import createClient, { type Client } from 'openapi-fetch';
import { type RetryNotice, sendWithRetries } from './attempts.js';
import {
  type ClientError,
  isRecord,
  signingUnavailable,
  toHttpProblem,
  UsersClientError,
} from './errors.js';
import { createResilientFetch, type FetchLike } from './resilient-fetch.js';
import { type RetryOptions, resolveRetry } from './retry-policy.js';
import { createRequestSigning, signingMiddleware } from './signing-middleware.js';
import { normalizeUser, type User, type UserWithIncome } from './user.js';

/** Settings of {@link createUsersClient}. */
export interface UsersClientOptions {
  /** Where the service lives, without `/api/v1` (the paths carry it), e.g. `https://api.example.com`. */
  baseUrl: string;
  /** The institution's public key, sent in every `Authorization` header. */
  publicKey: string;
  /** The institution's secret key; only feeds the HMAC, never sent or logged. */
  secretKey: string;
  /**
   * The `fetch` to send with; defaults to `globalThis.fetch`. Inject one for tests or proxies.
   * It is called like the standard `fetch`: `fetch(url, { method, headers, body, signal })` by
   * `createUser`/`updateUser`, `fetch(request, { signal })` by `raw` ({@link FetchLike}).
   * Honour `signal`, which ends the attempt (timeout or the caller's abort).
   */
  fetch?: FetchLike;
  /** Hash and encoding of the signature; must match the service (default SHA-256, hex). */
  signature?: SignatureOptions;
  /**
   * Whether every request also carries RFC 9421 message signatures (`Content-Digest`,
   * `Signature-Input`, `Signature`; spec: security scheme `MessageSignature`) beside
   * `Authorization`, a new `created` and nonce on every attempt. Default `true`. `false` sends
   * `Authorization` alone, for a service that refuses header fields it does not know; a key pair
   * the service requires message signatures of then refuses every request.
   */
  messageSignatures?: boolean;
  /** Budget of one attempt, from sending to the last byte of the answer. Default 10000. */
  timeoutMs?: number;
  /** Retry tuning, or `false` for a single attempt. Default: 2 retries, 250 ms base, 5 s cap. */
  retry?: RetryOptions | false;
  /** Extra headers for every request (a `User-Agent`, a tracing header). */
  headers?: Record<string, string>;
  /**
   * Sends each attempt of `createUser`/`updateUser` instead of `fetch` (signing, timeouts,
   * retries and reading unchanged): an HTTP stack of your own, or {@link fetchTransport} wrapped
   * to watch every answer, retries included. `raw` still sends with `fetch`.
   */
  transport?: Transport;
}

/** Per-call settings. */
export interface CallOptions {
  /** Aborts the call, including any wait between retries; reported as `kind: 'aborted'`. */
  signal?: AbortSignal;
  /** Extra headers for this call. */
  headers?: Record<string, string>;
  /**
   * Told before each wait for a further attempt (the failed attempt, its status or failure, the
   * wait), e.g. to report progress. It only watches: what it throws is ignored.
   */
  onRetry?: (notice: RetryNotice) => void;
}

/**
 * What every call resolves to; it never rejects for an HTTP error, a network failure, a timeout
 * or an abort (only programming errors, such as a body `JSON.stringify` cannot serialize,
 * throw). `response` is the final HTTP answer, absent when none arrived.
 */
export type UsersClientResult<T> =
  | { data: T; error?: never; response: Response }
  | { data?: never; error: ClientError; response: Response | undefined };

/** The answer to `createUser`. */
export interface CreateUserData {
  /** The user in the canonical shape. */
  user: User;
  /**
   * `true` for `201` (a new user), `false` for `200` (a user with this Ghana Card number
   * existed and was added to, or already belonged to, the institution; its stored details are
   * kept). After a retried create, `false` can also mean an earlier attempt of this very call
   * created the user and only its answer was lost.
   */
  created: boolean;
  /** The body exactly as received, in the create shape. */
  raw: UserCreated;
}

/** The answer to `updateUser`. */
export interface UpdateUserData {
  /** The user in the canonical shape; the update shape carries `monthlyIncome`. */
  user: UserWithIncome;
  /** The body exactly as received, in the update shape. */
  raw: UserUpdated;
}

/** The id of the user to update, as the spec types it (a UUID string). */
export type UserId = paths['/api/v1/external/users/{id}']['parameters']['path']['id'];

/** A client made by {@link createUsersClient}. */
export interface UsersClient {
  /** `POST /api/v1/external/users`: create a user or add an existing one (spec: `createUser`). */
  createUser(body: UserInput, init?: CallOptions): Promise<UsersClientResult<CreateUserData>>;
  /** `PUT /api/v1/external/users/{id}`: replace a user's details (spec: `updateUser`). */
  updateUser(
    id: UserId,
    body: UserInput,
    init?: CallOptions,
  ): Promise<UsersClientResult<UpdateUserData>>;
  /**
   * The underlying openapi-fetch client, typed with the generated `paths`, with the same
   * signing, timeouts and retries. For what the two methods do not cover; it returns the raw
   * response shapes and throws {@link UsersClientError} when no answer arrives.
   */
  readonly raw: Client<paths>;
}

/** Default budget of one attempt; generous because the service's limits are not shown. */
export const DEFAULT_TIMEOUT_MS = 10_000;

/** One attempt as it goes over the wire: the request line, its headers and the signed body. */
export interface Exchange {
  method: 'POST' | 'PUT';
  url: string;
  /**
   * `Content-Type`, the client's and the call's extra headers, `Authorization`, and (unless
   * turned off) the attempt's own `content-digest`, `signature-input` and `signature`.
   */
  headers: Record<string, string>;
  /** The JSON text that was signed, to be sent byte for byte. */
  body: string;
}

/**
 * The answer of one attempt: its status and headers (`response`) and its whole body as text.
 * The client reads the body from `text` only; `response`'s own body may be already read or absent.
 */
export interface Answer {
  response: Response;
  text: string;
}

/**
 * Sends one attempt and reads its whole answer; `signal` ends it (timeout or the caller's abort).
 * Rejects when no answer arrives, as `fetch` does.
 */
export type Transport = (exchange: Exchange, signal: AbortSignal) => Promise<Answer>;

/**
 * The transport of a client given no `transport` (with its `fetch` option, or the global one):
 * `fetch(url, init)`, not a `Request`, whose construction (body stream, header checks) is most
 * of a call's own cost and which the standard `fetch` would copy into a second one.
 */
export function fetchTransport(fetch: FetchLike): Transport {
  return async ({ method, url, headers, body }, signal) => {
    const response = await fetch(url, { method, headers, body, signal });
    return { response, text: await response.text() };
  };
}

/** The path of `createUser`, to which `updateUser` appends `/{id}` (spec: `paths`). */
const USERS_PATH = '/api/v1/external/users' satisfies keyof paths;

/**
 * The URL of `createUser` on the service at `baseUrl`, as the client sends to it: the base URL
 * without its trailing slashes, then the path (`updateUser` appends `/{id}`).
 */
export function usersUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '')}${USERS_PATH}`;
}

/**
 * Creates a users client. Options are checked here, so a bad key, URL, header, timeout or
 * retry setting throws at start-up (with a message that never contains the secret).
 */
export function createUsersClient(options: UsersClientOptions): UsersClient {
  const { baseUrl, publicKey, secretKey, signature, headers, messageSignatures } = options;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // setTimeout's ceiling: anything larger would fire at once.
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs <= 0 || timeoutMs > 2_147_483_647) {
    throw new RangeError('timeoutMs must be a positive integer number of milliseconds');
  }
  if (!URL.canParse(baseUrl)) throw new TypeError('baseUrl must be an absolute URL');
  const { username, password } = new URL(baseUrl);
  // fetch refuses such a URL on every request, and its error repeats the URL, password included.
  if (username !== '' || password !== '') {
    throw new TypeError('baseUrl must not contain a user name or password');
  }
  if (headers !== undefined) new Headers(headers); // throws for a name or value HTTP refuses
  const fetch: FetchLike = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const retry = resolveRetry(options.retry);
  const signing = createRequestSigning({ publicKey, secretKey, signature, messageSignatures });
  const { authorize, signMessage } = signing;
  const send = options.transport ?? fetchTransport(fetch);

  const raw = createClient<paths>({
    baseUrl,
    headers,
    fetch: createResilientFetch({ fetch, timeoutMs, retry, signMessage }),
  });
  raw.use(signingMiddleware(signing));
  const createUrl = usersUrl(baseUrl);

  /**
   * The headers of a call: those openapi-fetch would merge (`Content-Type`, the client's, the
   * call's, later ones winning whatever their letter case) plus `Authorization`, last, so a
   * caller cannot replace it (nor the message signature's fields, which each attempt adds). The request is built here rather than by openapi-fetch: the body
   * is the text already serialized and signed (never read back or re-serialized), and
   * openapi-fetch merges the headers twice per request and builds the URL through its path and
   * query serializers, which a profile showed as a tenth of a call here; neither operation has a
   * query, and the one path parameter, the id, is encoded as openapi-fetch's default does.
   */
  function headersFor(
    extra: Record<string, string> | undefined,
    authorization: string,
  ): Record<string, string> {
    if (headers === undefined && extra === undefined) {
      return { 'Content-Type': 'application/json', Authorization: authorization };
    }
    const merged = new Headers({ 'Content-Type': 'application/json' });
    for (const source of [headers, extra]) {
      if (source !== undefined) for (const name in source) merged.set(name, source[name] ?? '');
    }
    merged.set('Authorization', authorization);
    return Object.fromEntries(merged);
  }

  /**
   * Serializes and signs `Authorization` once, then runs the attempts: each sends these very
   * bytes and headers, plus a message signature of its own (a new `created` and nonce, since the
   * service accepts a nonce once), and reads the whole answer (so the attempt's timeout covers
   * the body too).
   */
  async function call<T>(
    method: 'POST' | 'PUT',
    url: string,
    body: UserInput,
    init: CallOptions | undefined,
    read: (value: Record<string, unknown>, response: Response) => T,
  ): Promise<UsersClientResult<T>> {
    const text = JSON.stringify(body);
    if (typeof text !== 'string') throw new TypeError('body is not JSON-serializable');
    const extra = init?.headers;
    // A header name or value HTTP refuses is a programming error: throw it now, not inside an
    // attempt, where it would read as a network failure.
    if (extra !== undefined) new Headers(extra);
    let authorization: string;
    try {
      const signed = authorize(text);
      authorization = typeof signed === 'string' ? signed : await signed;
    } catch (error) {
      // Nothing can be signed in this runtime: said now, never sent or retried.
      return { error: signingUnavailable(error), response: undefined };
    }
    const exchange: Exchange = {
      method,
      url,
      headers: headersFor(extra, authorization),
      body: text,
    };
    const attempt: (signal: AbortSignal) => Promise<Answer> =
      signMessage === undefined
        ? (signal) => send(exchange, signal)
        : (signal) => {
            // node:crypto signs synchronously: then the attempt awaits nothing more than before.
            const fields = signMessage({ method, url, body: text });
            return fields instanceof Promise
              ? fields.then((resolved) => send(withFields(exchange, resolved), signal))
              : send(withFields(exchange, fields), signal);
          };
    let answer: Answer;
    try {
      answer = await sendWithRetries({
        send: attempt,
        responseOf,
        timeoutMs,
        retry,
        caller: init?.signal,
        onRetry: init?.onRetry,
      });
    } catch (error) {
      if (error instanceof UsersClientError) return { error, response: undefined };
      throw error;
    }
    return settle(answer, read);
  }

  return {
    raw,
    createUser(body, init) {
      return call('POST', createUrl, body, init, readCreated);
    },
    updateUser(id, body, init) {
      return call('PUT', `${createUrl}/${encodeURIComponent(id)}`, body, init, readUpdated);
    },
  };
}

/** The exchange with a message signature's fields added to its headers (lowercase names). */
function withFields(exchange: Exchange, fields: MessageSignatureHeaders): Exchange {
  return { ...exchange, headers: { ...exchange.headers, ...fields } };
}

function readCreated(value: Record<string, unknown>, response: Response): CreateUserData {
  const raw = value as unknown as UserCreated;
  return { user: normalizeUser(raw), created: response.status === 201, raw };
}

function readUpdated(value: Record<string, unknown>): UpdateUserData {
  const raw = value as unknown as UserUpdated;
  return { user: normalizeUser(raw), raw };
}

function responseOf(value: { response: Response }): Response {
  return value.response;
}

/**
 * Turns the final answer into a {@link UsersClientResult}. The body is parsed here, so that a
 * `2xx` whose body is not JSON becomes an `invalid-response` error instead of a `SyntaxError`,
 * and an error answer that is not problem+json (a proxy's HTML page) is still a problem.
 */
function settle<T>(
  { response, text }: Answer,
  read: (value: Record<string, unknown>, response: Response) => T,
): UsersClientResult<T> {
  if (!response.ok) return { error: toHttpProblem(parseJson(text), response), response };
  const body = parseJson(text);
  if (!isRecord(body)) {
    const message = `The service answered ${response.status} without a JSON object body`;
    return { error: new UsersClientError('invalid-response', message), response };
  }
  return { data: read(body, response), response };
}

function parseJson(text: string | undefined): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
