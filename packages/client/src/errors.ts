/**
 * The two kinds of failure a call can report, kept apart because callers react differently:
 * an HTTP problem is the service's answer (fix the request, or wait after a 429), a
 * {@link UsersClientError} means no usable answer arrived at all.
 *
 * @module
 */
import { WEB_CRYPTO_UNAVAILABLE } from '@institution-api/signing';
import type { Problem } from '@institution-api/types';

/**
 * Why a call produced no usable answer.
 *
 * - `network`: the request could not be sent or the answer not received (connection refused or
 *   reset, DNS failure), after the configured retries.
 * - `timeout`: the last attempt got no complete answer within `timeoutMs`.
 * - `aborted`: the caller's own `AbortSignal` fired; never retried.
 * - `invalid-response`: a success status whose body is not a JSON object (a proxy's HTML page,
 *   an empty body), so there is no user to read.
 * - `signing-unavailable`: the request could not be signed here, so nothing was sent: no Web
 *   Crypto (`crypto.subtle`), which browsers give only to pages in a secure context (README,
 *   "Browsers"). Never retried.
 */
export type UsersClientErrorKind =
  | 'network'
  | 'timeout'
  | 'aborted'
  | 'invalid-response'
  | 'signing-unavailable';

/**
 * A call that got no usable answer. `createUser`/`updateUser` return it as `error` (they never
 * throw for it); the `raw` openapi-fetch client throws it, as openapi-fetch throws whatever
 * `fetch` throws. The original failure is in `cause`. Messages never contain credentials,
 * signatures or bodies.
 */
export class UsersClientError extends Error {
  override readonly name = 'UsersClientError';
  /** What went wrong; see {@link UsersClientErrorKind}. */
  readonly kind: UsersClientErrorKind;

  constructor(kind: UsersClientErrorKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.kind = kind;
  }
}

/**
 * The client's error for a signature that cannot be made in this runtime (the signing package's
 * `WebCryptoUnavailableError`), with what a page's developer must do; any other `error` is
 * thrown on, as a programming error.
 */
export function signingUnavailable(error: unknown): UsersClientError {
  if ((error as { code?: unknown } | null)?.code !== WEB_CRYPTO_UNAVAILABLE) throw error;
  return new UsersClientError(
    'signing-unavailable',
    'Cannot sign the request, so it was not sent: Web Crypto (crypto.subtle) is not available ' +
      'here. Browsers give it only to pages in a secure context: serve the page over HTTPS or ' +
      'from localhost. Better, do not sign in a page at all (anyone who loads it can read the ' +
      'secret key): sign in your backend or through `institution-api sign-proxy`.',
    { cause: error },
  );
}

/**
 * An HTTP error answer: the RFC 9457 problem details the service sends (spec: `Problem`,
 * decision "errors"), tagged `kind: 'http'` so it sits in one union with
 * {@link UsersClientError}. `status` is always the response's status.
 */
export interface HttpProblem extends Problem {
  kind: 'http';
}

/** Everything `error` can be in a result of `createUser` or `updateUser`; switch on `kind`. */
export type ClientError = HttpProblem | UsersClientError;

/**
 * Reads an error answer tolerantly. The reference service always sends problem+json, but a
 * proxy or load balancer in front of it may answer with HTML or nothing; RFC 9457 §4.2.1 says
 * a missing `type` means `about:blank`, whose `title` is the status phrase. The body is never
 * copied into `detail`, because a proxy page could be large or echo the request.
 */
export function toHttpProblem(body: unknown, response: Response): HttpProblem {
  const problem = isRecord(body) ? body : {};
  const result: HttpProblem = {
    ...problem,
    kind: 'http',
    type: typeof problem.type === 'string' ? problem.type : 'about:blank',
    title:
      typeof problem.title === 'string'
        ? problem.title
        : response.statusText || `HTTP status ${response.status}`,
    status: response.status,
  };
  if (!isRecord(body)) {
    result.detail = `The service answered ${response.status} without a problem details body.`;
  }
  return result;
}

/** A JSON object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
