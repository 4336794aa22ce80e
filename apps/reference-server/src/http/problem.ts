import type { FieldError, Problem } from '@institution-api/types';
import type { Request, Response } from 'express';

/**
 * The kinds of problem the server answers with: `type` URN, status and title exactly as in the
 * table of the spec's `Problem` schema (openapi/components/schemas/Problem.yaml).
 */
export const problemKinds = {
  validation: {
    type: 'urn:institution-api:problem:validation-error',
    status: 400,
    title: 'Request validation failed',
  },
  malformedJson: {
    type: 'urn:institution-api:problem:malformed-json',
    status: 400,
    title: 'Malformed JSON',
  },
  malformedRequest: {
    type: 'urn:institution-api:problem:malformed-request',
    status: 400,
    title: 'Malformed request',
  },
  unauthorized: {
    type: 'urn:institution-api:problem:unauthorized',
    status: 401,
    title: 'Unauthorized',
  },
  notFound: { type: 'urn:institution-api:problem:not-found', status: 404, title: 'Not found' },
  methodNotAllowed: {
    type: 'urn:institution-api:problem:method-not-allowed',
    status: 405,
    title: 'Method not allowed',
  },
  requestTimeout: {
    type: 'urn:institution-api:problem:request-timeout',
    status: 408,
    title: 'Request timeout',
  },
  conflict: { type: 'urn:institution-api:problem:conflict', status: 409, title: 'Conflict' },
  payloadTooLarge: {
    type: 'urn:institution-api:problem:payload-too-large',
    status: 413,
    title: 'Payload too large',
  },
  unsupportedMediaType: {
    type: 'urn:institution-api:problem:unsupported-media-type',
    status: 415,
    title: 'Unsupported media type',
  },
  headersTooLarge: {
    type: 'urn:institution-api:problem:request-header-fields-too-large',
    status: 431,
    title: 'Request header fields too large',
  },
  rateLimited: {
    type: 'urn:institution-api:problem:rate-limited',
    status: 429,
    title: 'Too many requests',
  },
  internal: {
    type: 'urn:institution-api:problem:internal',
    status: 500,
    title: 'Internal server error',
  },
  unavailable: {
    type: 'urn:institution-api:problem:unavailable',
    status: 503,
    title: 'Service unavailable',
  },
} as const;

/** One of {@link problemKinds}. */
export type ProblemKind = (typeof problemKinds)[keyof typeof problemKinds];

/** The media type of every error body (RFC 9457 section 3; DECISIONS.md "errors"). */
export const problemMediaType = 'application/problem+json';

/**
 * An error that already knows the problem it answers with. Middleware throws (or passes to
 * `next`) an `HttpProblem`; the error handler sends it, so there is one place that writes error
 * bodies. `headers` carries e.g. `Allow` for 405.
 */
export class HttpProblem extends Error {
  constructor(
    readonly kind: ProblemKind,
    readonly detail: string,
    readonly errors?: FieldError[],
    readonly headers?: Record<string, string>,
  ) {
    super(detail);
    this.name = 'HttpProblem';
  }
}

/** The validation problem of DECISIONS.md "errors": one `{ path, message }` per broken rule. */
export function validationProblem(errors: FieldError[]): HttpProblem {
  return new HttpProblem(
    problemKinds.validation,
    'The request does not match the contract; see errors.',
    errors,
  );
}

/**
 * The most `errors` a problem lists (DECISIONS.md "errors"; spec `Problem.errors` maxItems): a
 * body with thousands of unknown keys answers the first 50 and how many more, not a list the size
 * of the body.
 */
export const maxListedErrors = 50;

/**
 * The problem document of `kind`: `instance` is the request path (the spec's examples do the
 * same) and `errors` is cut at {@link maxListedErrors}, `errorsOmitted` counting the rest.
 */
export function problemDocument(
  kind: ProblemKind,
  detail: string,
  url: string | undefined,
  errors?: FieldError[],
): Problem {
  const body: Problem = { type: kind.type, title: kind.title, status: kind.status, detail };
  if (url !== undefined) body.instance = instanceOf(url);
  if (errors) {
    body.errors = errors.slice(0, maxListedErrors);
    if (errors.length > maxListedErrors) body.errorsOmitted = errors.length - maxListedErrors;
  }
  return body;
}

/** Writes `problem` as `application/problem+json` (see {@link problemDocument}). */
export function sendProblem(req: Request, res: Response, problem: HttpProblem): void {
  const body = problemDocument(problem.kind, problem.detail, req.originalUrl, problem.errors);
  for (const [name, value] of Object.entries(problem.headers ?? {})) res.setHeader(name, value);
  res.status(problem.kind.status).type(problemMediaType).json(body);
}

/**
 * The path of `url` as a URI reference: the query string left out, and any character a URI
 * reference may not hold percent-encoded, so `instance` stays a valid `uri-reference` whatever
 * was sent.
 */
function instanceOf(url: string): string {
  const path = url.split('?', 1)[0] ?? '/';
  return path
    .replace(/%(?![0-9A-Fa-f]{2})/g, '%25')
    .replace(/[^A-Za-z0-9\-._~!$&'()*+,;=:@/%]/g, (c) => encodeURIComponent(c));
}
