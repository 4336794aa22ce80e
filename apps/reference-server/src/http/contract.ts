import { parse as legacyUrlParse } from 'node:url';
import { parameterError } from '@institution-api/runtime/http';
import { specFormats } from '@institution-api/runtime/spec-ajv';
import type { FieldError, OpenApiDocument } from '@institution-api/types';
import type { Request, RequestHandler } from 'express';
import {
  middleware as openApiValidator,
  error as validatorErrors,
} from 'express-openapi-validator';
import { HttpProblem, problemKinds, validationProblem } from './problem.js';
import { cacheValidatorRouteMatchers } from './validation/route-matcher-cache.js';

type ValidatorOptions = Parameters<typeof openApiValidator>[0];

/** One item of express-openapi-validator's `errors`. */
interface ValidatorErrorItem {
  path: string;
  message: string;
  errorCode?: string;
}

/**
 * A response the server was about to send that breaks the spec: a bug of the server, never the
 * client's fault. The error handler logs it and answers 500 `internal` instead of sending it.
 */
export class ResponseContractError extends Error {
  constructor(
    message: string,
    /** Where the response breaks the spec (`/response/mobileNumber`) and how. */
    readonly violations: ValidatorErrorItem[],
  ) {
    super(message);
    this.name = 'ResponseContractError';
  }
}

/**
 * express-openapi-validator (EOV) over the bundled spec, as one route middleware placed after
 * authentication and JSON parsing: it validates the path parameters, query and body of every
 * request, and every response body a handler sends with `res.json`.
 *
 * - A request that breaks the spec becomes one 400 validation problem. Errors in the body are not
 *   EOV's own (a failed `oneOf` reports every variant: ARCHITECTURE.md, "What the code relies
 *   on") but those of `bodyErrors`,
 *   which checks the body against the one variant it means.
 * - A response that breaks the spec goes to `validateResponses.onError`. EOV would then send the
 *   body anyway, so `onError` throws: EOV passes the error to `next`, and the client gets the 500
 *   problem, never the malformed body.
 *
 * The document is deep-copied, because EOV rewrites the spec it is given.
 */
export function contractValidation(options: {
  document: OpenApiDocument;
  bodyErrors: (body: unknown) => FieldError[];
}): RequestHandler {
  settleUrlParseDeprecation();
  cacheValidatorRouteMatchers();
  const middlewares = openApiValidator({
    apiSpec: structuredClone(options.document) as unknown as ValidatorOptions['apiSpec'],
    validateApiSpec: true,
    // Full format checks (real calendar dates, not just their shape), and our own `date`.
    ajvFormats: { mode: 'full' },
    formats: { ...specFormats },
    validateRequests: { allErrors: true },
    validateResponses: {
      allErrors: true,
      onError(error, _body, req) {
        throw new ResponseContractError(
          `The ${req.method} ${req.path} response with status ${req.res?.statusCode} breaks the spec: ${error.message}`,
          (error.errors ?? []).map(({ path, message }) => ({ path, message })),
        );
      },
    },
    // Authentication is ours, over the raw bytes, before any of this runs.
    validateSecurity: false,
    // Nothing is multipart: without this, a multer middleware runs on every request to say so.
    fileUploader: false,
  });
  // EOV's security step only calls `next` when `validateSecurity` is off; the others run as one
  // route layer rather than five (every Express layer and promise hop costs, here where
  // each request goes through all of them).
  const steps = middlewares.filter((middleware) => middleware.name !== 'securityMiddleware');
  return (req, res, next) => {
    let index = 0;
    const step = (error?: unknown): void => {
      const middleware = steps[index++];
      if (error !== undefined) next(asProblem(error, req, options.bodyErrors));
      else if (middleware === undefined) next();
      // Each EOV step runs in a promise of its own and passes whatever it throws to `step`.
      else void middleware(req, res, step);
    };
    step();
  };
}

/** EOV's request errors as the spec's problems; anything else passes through unchanged. */
function asProblem(
  error: unknown,
  req: Request,
  bodyErrors: (body: unknown) => FieldError[],
): unknown {
  if (error instanceof validatorErrors.BadRequest) {
    return validationProblem(distil(error.errors ?? [], req.body, bodyErrors));
  }
  if (error instanceof validatorErrors.UnsupportedMediaType) {
    return new HttpProblem(
      problemKinds.unsupportedMediaType,
      'The request body must be sent as application/json.',
    );
  }
  if (error instanceof validatorErrors.NotFound) {
    return new HttpProblem(problemKinds.notFound, `No route matches ${req.method} ${req.path}.`);
  }
  return error;
}

/** Body errors from `bodyErrors`, other errors (path parameters, query) in plain words. */
function distil(
  items: ValidatorErrorItem[],
  body: unknown,
  bodyErrors: (body: unknown) => FieldError[],
): FieldError[] {
  const isBody = (item: ValidatorErrorItem) =>
    item.path === '/body' || item.path.startsWith('/body/');
  const others = items.filter((item) => !isBody(item)).map(parameterError);
  if (!items.some(isBody)) return others;
  const fromVariant = bodyErrors(body);
  return [
    ...(fromVariant.length > 0 ? fromVariant : items.filter(isBody).map(parameterError)),
    ...others,
  ];
}

/**
 * EOV calls the legacy `url.parse()` on every request (its parameter mutator). Until Node has
 * printed its deprecation warning for `url.parse()` (DEP0169) once, each call first walks the
 * caller's stack to see whether it comes from node_modules, where Node stays silent; EOV's calls
 * always do, so Node never warns and walks the stack on every request: about a tenth of the HTTP
 * layer's time in a CPU profile. One call from here, with deprecation warnings muted
 * for its duration, lets Node record the warning as given. Harmless where Node behaves otherwise.
 */
function settleUrlParseDeprecation(): void {
  const muted = process.noDeprecation;
  process.noDeprecation = true;
  try {
    legacyUrlParse('/');
  } finally {
    process.noDeprecation = muted;
  }
}
