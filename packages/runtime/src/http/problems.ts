/**
 * The problems (RFC 9457) the service answers with, shared by the reference server and the mock so
 * that both say the same thing in the same words (spec: `Problem`, and its table of `type`s).
 *
 * @module
 */
import type { FieldError, Problem, SignatureDiagnosis } from '@institution-api/types';

/**
 * The kinds of problem: `type` URN, status and title exactly as in the table of the spec's
 * `Problem` schema.
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

/** The media type of every error body (RFC 9457 section 3; spec: `Problem`). */
export const problemMediaType = 'application/problem+json';

/**
 * The most `errors` a problem lists (spec: `Problem.errors` maxItems): a body with thousands of
 * unknown keys answers the first 50 and how many more, not a list the size of the body.
 */
export const maxListedErrors = 50;

/** A problem as the service words it: its kind, the detail, and the field errors if any. */
export interface ProblemWording {
  kind: ProblemKind;
  detail: string;
  errors?: FieldError[];
}

/**
 * The words of the problems the semantics of the operations give (spec: createUser, updateUser,
 * "Assumptions"). A user that exists with other details is described by the request's own field
 * only: nothing stored is revealed (spec example `ExistsWithOtherDetailsProblem`).
 */
export const semanticProblems = {
  existsWithOtherDetails: {
    kind: problemKinds.conflict,
    detail: 'A user with this Ghana Card number exists with other details. Nothing was written.',
    errors: [
      {
        path: '/body/ghanaCardNumber',
        message: 'ghanaCardNumber belongs to a user with other details',
      },
    ],
  },
  emailTaken: {
    kind: problemKinds.conflict,
    detail: 'The email address belongs to another user.',
    errors: [{ path: '/body/email', message: 'email belongs to another user' }],
  },
  ghanaCardNumberTaken: {
    kind: problemKinds.conflict,
    detail: 'The Ghana Card number belongs to another user.',
    errors: [{ path: '/body/ghanaCardNumber', message: 'ghanaCardNumber belongs to another user' }],
  },
  userNotFound: {
    kind: problemKinds.notFound,
    detail: 'No user with this id belongs to the calling institution.',
  },
} as const satisfies Record<string, ProblemWording>;

/** The one 401 detail, whatever the reason (spec example `UnauthorizedProblem`). */
export const unauthorizedDetail =
  'The Authorization header is missing or its signature does not verify.';

/**
 * The problem document of `kind`: `instance` is the request path (the spec's examples do the
 * same) and `errors` is cut at {@link maxListedErrors}, `errorsOmitted` counting the rest. A
 * sandbox's `401` adds `diagnosis` last (spec: `Problem.diagnosis`), so the server and the mock
 * write its members in one order.
 */
export function problemDocument(
  kind: ProblemKind,
  detail: string,
  url: string | undefined,
  errors?: FieldError[],
  diagnosis?: SignatureDiagnosis,
): Problem {
  const body: Problem = {
    type: kind.type,
    title: kind.title,
    status: kind.status,
    detail,
  };
  if (url !== undefined) body.instance = instanceOf(url);
  if (errors) {
    body.errors = errors.slice(0, maxListedErrors);
    if (errors.length > maxListedErrors) body.errorsOmitted = errors.length - maxListedErrors;
  }
  if (diagnosis) body.diagnosis = diagnosis;
  return body;
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
