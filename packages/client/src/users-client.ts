/**
 * The users client: the two operations of the interface (spec: `createUser`, `updateUser`) on a
 * typed openapi-fetch client that signs every request, bounds each attempt with a timeout and
 * retries what is safe to retry, answering in one canonical {@link User} shape.
 *
 * @module
 */
import type { SignatureOptions } from '@institution-api/signing';
import type { paths, UserCreated, UserInput, UserUpdated } from '@institution-api/types';
import createClient, { type Client } from 'openapi-fetch';
import { type ClientError, isRecord, toHttpProblem, UsersClientError } from './errors.js';
import { createResilientFetch, type FetchLike } from './resilient-fetch.js';
import { type RetryOptions, resolveRetry } from './retry-policy.js';
import { createSigningMiddleware } from './signing-middleware.js';
import { normalizeUser, type User } from './user.js';

/** Settings of {@link createUsersClient}. */
export interface UsersClientOptions {
  /** Where the service lives, without `/api/v1` (the paths carry it), e.g. `https://api.example.com`. */
  baseUrl: string;
  /** The institution's public key, sent in every `Authorization` header. */
  publicKey: string;
  /** The institution's secret key; only feeds the HMAC, never sent or logged. */
  secretKey: string;
  /** The `fetch` to send with; defaults to `globalThis.fetch`. Inject one for tests or proxies. */
  fetch?: FetchLike;
  /** Hash and encoding of the signature; must match the service (default SHA-256, hex). */
  signature?: SignatureOptions;
  /** Budget of one attempt, from sending to the last byte of the answer. Default 10000. */
  timeoutMs?: number;
  /** Retry tuning, or `false` for a single attempt. Default: 2 retries, 250 ms base, 5 s cap. */
  retry?: RetryOptions | false;
  /** Extra headers for every request (a `User-Agent`, a tracing header). */
  headers?: Record<string, string>;
}

/** Per-call settings. */
export interface CallOptions {
  /** Aborts the call, including any wait between retries; reported as `kind: 'aborted'`. */
  signal?: AbortSignal;
  /** Extra headers for this call. */
  headers?: Record<string, string>;
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
  /** The user in the canonical shape. */
  user: User;
  /** The body exactly as received, in the update shape. */
  raw: UserUpdated;
}

/** The id of the user to update, as the spec types it (a UUID string). */
export type UserId = paths['/api/v1/external/users/{id}']['parameters']['path']['id'];

/** A client made by {@link createUsersClient}. */
export interface UsersClient {
  /** `POST /api/v1/external/users`: create a user or add an existing one (section 4.1). */
  createUser(body: UserInput, init?: CallOptions): Promise<UsersClientResult<CreateUserData>>;
  /** `PUT /api/v1/external/users/{id}`: replace a user's details (section 4.2). */
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

/**
 * Creates a users client. Options are checked here, so a bad key, URL, timeout or retry
 * setting throws at start-up (with a message that never contains the secret).
 */
export function createUsersClient(options: UsersClientOptions): UsersClient {
  const { baseUrl, publicKey, secretKey, signature, headers } = options;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // setTimeout's ceiling: anything larger would fire at once.
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs <= 0 || timeoutMs > 2_147_483_647) {
    throw new RangeError('timeoutMs must be a positive integer number of milliseconds');
  }
  if (!URL.canParse(baseUrl)) throw new TypeError('baseUrl must be an absolute URL');
  const baseFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const raw = createClient<paths>({
    baseUrl,
    headers,
    fetch: createResilientFetch({
      fetch: baseFetch,
      timeoutMs,
      retry: resolveRetry(options.retry),
    }),
  });
  raw.use(createSigningMiddleware({ publicKey, secretKey, signature }));

  return {
    raw,
    createUser(body, init) {
      return settle(
        raw.POST('/api/v1/external/users', { body: writable(body), parseAs: 'text', ...init }),
        (value: UserCreated, response) => ({
          user: normalizeUser(value),
          created: response.status === 201,
          raw: value,
        }),
      );
    },
    updateUser(id, body, init) {
      return settle(
        raw.PUT('/api/v1/external/users/{id}', {
          params: { path: { id } },
          body: writable(body),
          parseAs: 'text',
          ...init,
        }),
        (value: UserUpdated) => ({ user: normalizeUser(value), raw: value }),
      );
    },
  };
}

/**
 * Turns an openapi-fetch call into a {@link UsersClientResult}. The success body is parsed
 * here (openapi-fetch is asked for text) so that a `2xx` whose body is not JSON becomes an
 * `invalid-response` error instead of a `SyntaxError`.
 */
async function settle<Body, T>(
  call: Promise<{ data?: string; error?: unknown; response: Response }>,
  read: (body: Body, response: Response) => T,
): Promise<UsersClientResult<T>> {
  let result: Awaited<typeof call>;
  try {
    result = await call;
  } catch (error) {
    if (error instanceof UsersClientError) return { error, response: undefined };
    throw error;
  }
  const { data, error, response } = result;
  if (!response.ok) return { error: toHttpProblem(error, response), response };
  const body = parseJson(data);
  if (!isRecord(body)) {
    const message = `The service answered ${response.status} without a JSON object body`;
    return { error: new UsersClientError('invalid-response', message), response };
  }
  return { data: read(body as Body, response), response };
}

/**
 * openapi-fetch 0.17 types request bodies with `Writable<T>`, which drops keys whose type is
 * only `null` (`NonNullable<null>` is `never`, which it mistakes for a read-only marker), so the
 * "no account" variant of `UserInput` (`accountType: null`) is refused although it is valid
 * (openapi-ts/openapi-typescript#2717). The public methods keep the exact `UserInput` type.
 */
function writable(body: UserInput): never {
  return body as never;
}

function parseJson(text: string | undefined): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
