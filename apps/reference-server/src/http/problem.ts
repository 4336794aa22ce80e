import {
  type ProblemKind,
  problemDocument,
  problemKinds,
  problemMediaType,
} from '@institution-api/runtime/http';
import type { FieldError, SignatureDiagnosis } from '@institution-api/types';
import type { Request, Response } from 'express';

/**
 * The kinds of problem and the problem document are `@institution-api/runtime/http`'s, which the
 * mock (`@institution-api/mock`) answers with too: type URN, status and title exactly as in the
 * table of the spec's `Problem` schema.
 */
export {
  maxListedErrors,
  type ProblemKind,
  problemDocument,
  problemKinds,
  problemMediaType,
} from '@institution-api/runtime/http';

/**
 * An error that already knows the problem it answers with. Middleware throws (or passes to
 * `next`) an `HttpProblem`; the error handler sends it, so there is one place that writes error
 * bodies. `headers` carries e.g. `Allow` for 405; `diagnosis`, a sandbox's `401` for a known key
 * (spec: `Problem.diagnosis`).
 */
export class HttpProblem extends Error {
  constructor(
    readonly kind: ProblemKind,
    readonly detail: string,
    readonly errors?: FieldError[],
    readonly headers?: Record<string, string>,
    readonly diagnosis?: SignatureDiagnosis,
  ) {
    super(detail);
    this.name = 'HttpProblem';
  }
}

/** The validation problem of spec Assumptions, "Errors": one `{ path, message }` per broken rule. */
export function validationProblem(errors: FieldError[]): HttpProblem {
  return new HttpProblem(
    problemKinds.validation,
    'The request does not match the contract; see errors.',
    errors,
  );
}

/** Writes `problem` as `application/problem+json` (see {@link problemDocument}). */
export function sendProblem(req: Request, res: Response, problem: HttpProblem): void {
  const body = problemDocument(
    problem.kind,
    problem.detail,
    req.originalUrl,
    problem.errors,
    problem.diagnosis,
  );
  for (const [name, value] of Object.entries(problem.headers ?? {})) res.setHeader(name, value);
  res.status(problem.kind.status).type(problemMediaType).json(body);
}
