/**
 * The mock service: one function from a Fetch `Request` to the `Response` the reference server
 * would give, in memory. The MSW handlers and the mock server both answer through it.
 *
 * @module
 */

import {
  forcedAnswer,
  isUtf8Json,
  maxBodyBytes,
  mayHoldRefusedContent,
  parsePrefer,
  problemKinds,
  refusedContent,
  semanticProblems,
  unauthorizedDetail,
} from '@institution-api/runtime/http';
import {
  type CreateOutcome,
  type UpdateOutcome,
  UserDirectory,
} from '@institution-api/runtime/model';
import {
  deriveUserDetailsModel,
  type UserDetailsModel,
  userDetailsModel,
} from '@institution-api/runtime/user-details';
import type { TargetUri } from '@institution-api/signing';
import {
  type FieldError,
  type OpenApiDocument,
  openapiDocument,
  type UserInput,
} from '@institution-api/types';
import { jsonAnswer, problemAnswer, toUserCreated, toUserUpdated } from './answers.js';
import {
  type Authenticator,
  type AuthenticatorOptions,
  createAuthenticator,
} from './authenticate.js';
import type { MockInstitution } from './institutions.js';
import { type Operation, operationsOf, route } from './operations.js';
import { createRequestValidator, type RequestValidator } from './validate-request.js';

/** Options of {@link createMockService}. */
export interface MockServiceOptions extends AuthenticatorOptions {
  /** The institutions and their key pairs, as in `INSTITUTION_CREDENTIALS`. */
  institutions: readonly MockInstitution[];
  /** The path the API is served under (`/sandbox` for `https://host/sandbox/api/v1/...`); none by default. */
  basePath?: string;
  /** The contract; the bundled spec of `@institution-api/types` by default. */
  document?: OpenApiDocument;
  /** A new user's or account's id; random UUIDs by default. */
  newId?: () => string;
}

/**
 * How a request that came over the wire is routed (`routedTarget` of `@institution-api/signing`):
 * its target URI, with the path exactly as received (which a Fetch `Request`'s URL normalizes),
 * and the sentence of the `400` its `Host` earns when that is not one authority alone.
 */
export interface RoutedRequest {
  target: TargetUri;
  malformedHost?: string | undefined;
}

/** A running mock service. */
export interface MockService {
  /**
   * The answer to `request`, as the reference server would give it, routed as `routed` says when
   * the request came over the wire; by the request's URL otherwise.
   */
  handle(request: Request, routed?: RoutedRequest): Promise<Response>;
  /** Forgets every user and every message-signature nonce: a fresh service. */
  reset(): void;
  /** Compiles the spec's validators now (they are compiled on the first request otherwise). */
  warm(): Promise<void>;
  /** The users it holds: the one model of the semantics (`@institution-api/runtime/model`). */
  readonly directory: UserDirectory;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A mock of the service, as the reference server behaves (its README's order of steps):
 * 1. the route: an unknown path is `404`, a known path with another method `405` with `Allow`;
 * 2. the body: compressed is `415`, over 64 KiB `413`;
 * 3. the signatures (`Authorization`, and RFC 9421 message signatures as each pair requires): the
 *    one `401`, with a known key pair's `diagnosis` (spec: `Problem.diagnosis`) unless
 *    `signatureDiagnosis` is false;
 * 4. a sandbox's forced answer, `Prefer: code=NNN` (spec: "Assumptions", "Sandbox");
 * 5. the JSON: not `application/json` is `415`, no body or bytes that are not JSON `400`, a
 *    refused key or string `400` naming it;
 * 6. validation against the spec: `400` naming each field and rule;
 * 7. the semantics, from the one model (`UserDirectory`): `201`, `200`, `404`, `409`, in the two
 *    response shapes.
 */
export function createMockService(options: MockServiceOptions): MockService {
  const document = options.document ?? openapiDocument;
  // Another spec (a suite's variant) has details of its own; the bundled spec's are derived once.
  const details = options.document ? deriveUserDetailsModel(document) : userDetailsModel;
  const service: Service = {
    document,
    operations: operationsOf(document),
    validate: createRequestValidator(document),
    authenticate: createAuthenticator(options.institutions, options),
    details,
    directory: new UserDirectory({
      details,
      ...(options.newId ? { newId: options.newId } : {}),
      ...(options.now ? { now: () => new Date((options.now as () => number)()) } : {}),
    }),
    basePath: (options.basePath ?? '').replace(/\/$/, ''),
  };
  return {
    handle: (request, routed) => answer(service, request, routed),
    directory: service.directory,
    warm: () => service.validate.warm(),
    reset() {
      service.directory.reset();
      service.authenticate.reset();
    },
  };
}

/** What every request of one mock service is answered with. */
interface Service {
  document: OpenApiDocument;
  operations: Operation[];
  validate: RequestValidator;
  authenticate: Authenticator;
  details: UserDetailsModel;
  directory: UserDirectory;
  basePath: string;
}

/** One request on its way through the steps: where it was sent, and its `Host`'s problem. */
interface Received {
  request: Request;
  url: TargetUri | URL;
  /** The problem's `instance`: the path of the request. */
  instance: string;
  /** The `400` of a malformed `Host`, if it is one. */
  malformedHost(): Response | undefined;
}

/** The steps of {@link createMockService}, in order; each either answers or hands on. */
async function answer(service: Service, request: Request, routed?: RoutedRequest) {
  const url = routed?.target ?? new URL(request.url);
  const instance = url.pathname;
  const received: Received = {
    request,
    url,
    instance,
    // As the server: a malformed Host is a 400 at once, but for an operation only once its
    // signatures verified, so a signature made for another request is the one 401.
    malformedHost: () =>
      routed?.malformedHost === undefined
        ? undefined
        : problemAnswer(problemKinds.malformedRequest, routed.malformedHost, instance),
  };
  const found = routeOf(service, received);
  if (found instanceof Response) return found;
  const raw = await bodyOf(received);
  if (raw instanceof Response) return raw;
  const signed = await signedBy(service, received, raw);
  if (signed instanceof Response) return signed;
  const forced = forcedBy(service, received, found.operation);
  if (forced) return forced;
  const body = await validBody(service, received, found, raw);
  if (body instanceof Response) return body;
  const input = body as UserInput;
  const { directory, details } = service;
  if (found.operation.id === 'updateUser') {
    const id = (found.values[0] ?? '').toLowerCase().replace(/^urn:uuid:/, '');
    return answerUpdate(directory.update(signed.institution, id, input), details, instance);
  }
  return answerCreate(directory.create(signed.institution, input), details, instance);
}

/** 1. The operation the request names, with its path parameters decoded; or `404`, `405`. */
function routeOf(
  { operations, basePath }: Service,
  { request, url, instance, malformedHost }: Received,
): Response | { operation: Operation; values: string[] } {
  const path = url.pathname.startsWith(basePath) ? url.pathname.slice(basePath.length) : undefined;
  const found =
    path === undefined ? { kind: 'not-found' as const } : route(operations, request.method, path);
  if (found.kind !== 'operation') {
    const refused = malformedHost();
    if (refused) return refused;
  }
  if (found.kind === 'not-found') {
    return problemAnswer(
      problemKinds.notFound,
      `No route matches ${request.method} ${url.pathname}.`,
      instance,
    );
  }
  if (found.kind === 'method-not-allowed') {
    return problemAnswer(
      problemKinds.methodNotAllowed,
      `${request.method} is not allowed here; use ${found.allowed.join(' or ')}.`,
      instance,
      undefined,
      { allow: found.allowed.join(', ') },
    );
  }
  try {
    return {
      operation: found.operation,
      values: found.values.map((value) => decodeURIComponent(value)),
    };
  } catch {
    return contractProblem(instance, [
      { path: '/params', message: 'a path parameter is not valid percent-encoded UTF-8' },
    ]);
  }
}

/** 2. The body's bytes, unless compressed (`415`) or over 64 KiB (`413`). */
async function bodyOf({ request, instance }: Received): Promise<Response | Uint8Array> {
  const encoding = request.headers.get('content-encoding');
  if (encoding !== null && encoding.trim().toLowerCase() !== 'identity') {
    return problemAnswer(
      problemKinds.unsupportedMediaType,
      'The request body must be sent as application/json, without Content-Encoding.',
      instance,
    );
  }
  const tooLarge = () =>
    problemAnswer(
      problemKinds.payloadTooLarge,
      `The request body is larger than ${maxBodyBytes} bytes.`,
      instance,
    );
  if (Number(request.headers.get('content-length') ?? 0) > maxBodyBytes) return tooLarge();
  const raw = new Uint8Array(await request.arrayBuffer());
  return raw.length > maxBodyBytes ? tooLarge() : raw;
}

/** 3. The institution whose signatures the request carries; else the one `401`, or a bad `Host`'s `400`. */
async function signedBy(
  { authenticate }: Service,
  { request, url, instance, malformedHost }: Received,
  raw: Uint8Array,
): Promise<Response | { institution: string }> {
  const { institution, diagnosis } = await authenticate({
    method: request.method,
    url,
    headers: request.headers,
    body: raw,
  });
  if (!institution) {
    return problemAnswer(
      problemKinds.unauthorized,
      unauthorizedDetail,
      instance,
      undefined,
      undefined,
      diagnosis,
    );
  }
  return malformedHost() ?? { institution: institution.institution };
}

/** 4. A sandbox's forced answer (`Prefer: code=NNN`), or a `400` for a code it cannot force. */
function forcedBy(
  { document }: Service,
  { request, instance }: Received,
  operation: Operation,
): Response | undefined {
  const forced = forcedAnswer(document, operation.id, parsePrefer(request.headers.get('prefer')));
  if (!forced) return undefined;
  if ('error' in forced) return contractProblem(instance, [forced.error]);
  return new Response(forced.body === undefined ? null : JSON.stringify(forced.body), {
    status: forced.status,
    headers: {
      ...(forced.contentType ? { 'content-type': `${forced.contentType}; charset=utf-8` } : {}),
      ...forced.headers,
    },
  });
}

/** 5 and 6. The body as JSON, valid against the spec; else `415` or `400` naming each rule. */
async function validBody(
  { validate }: Service,
  { request, url, instance }: Received,
  { operation, values }: { operation: Operation; values: string[] },
  raw: Uint8Array,
): Promise<unknown> {
  if (!isUtf8Json(request.headers.get('content-type'))) {
    return problemAnswer(
      problemKinds.unsupportedMediaType,
      'The request body must be sent as application/json.',
      instance,
    );
  }
  if (raw.length === 0) {
    return contractProblem(instance, [
      { path: '/body', message: 'the body is required (a JSON object)' },
    ]);
  }
  let body: unknown;
  let text: string;
  try {
    text = utf8.decode(raw);
    body = JSON.parse(text);
  } catch {
    return problemAnswer(
      problemKinds.malformedJson,
      'The request body is not valid JSON.',
      instance,
    );
  }
  const refused = mayHoldRefusedContent(text) ? refusedContent(body) : undefined;
  const errors = refused
    ? [refused]
    : await validate(operation, {
        values,
        query: new URLSearchParams(url.search),
        headers: request.headers,
        body,
      });
  return errors.length > 0 ? contractProblem(instance, errors) : body;
}

/** The `400` of a request that does not match the contract, naming each field and rule. */
function contractProblem(instance: string, errors: FieldError[]): Response {
  return problemAnswer(
    problemKinds.validation,
    'The request does not match the contract; see errors.',
    instance,
    errors,
  );
}

/** A create's outcome as the spec answers it (createUser). */
function answerCreate(
  result: CreateOutcome,
  details: UserDetailsModel,
  instance: string,
): Response {
  switch (result.outcome) {
    case 'created':
      return jsonAnswer(201, toUserCreated(result.user, details));
    case 'existing':
      return jsonAnswer(200, toUserCreated(result.user, details));
    case 'exists-with-other-details':
      return problem(semanticProblems.existsWithOtherDetails, instance);
    case 'conflict':
      return problem(semanticProblems.emailTaken, instance);
  }
}

/** An update's outcome as the spec answers it (updateUser). */
function answerUpdate(
  result: UpdateOutcome,
  details: UserDetailsModel,
  instance: string,
): Response {
  switch (result.outcome) {
    case 'updated':
      return jsonAnswer(200, toUserUpdated(result.user, details));
    case 'not-found':
      return problem(semanticProblems.userNotFound, instance);
    case 'conflict':
      return problem(
        result.field === 'email'
          ? semanticProblems.emailTaken
          : semanticProblems.ghanaCardNumberTaken,
        instance,
      );
  }
}

function problem(
  wording: (typeof semanticProblems)[keyof typeof semanticProblems],
  instance: string,
): Response {
  return problemAnswer(
    wording.kind,
    wording.detail,
    instance,
    'errors' in wording ? [...wording.errors] : undefined,
  );
}
