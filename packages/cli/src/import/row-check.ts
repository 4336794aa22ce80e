/**
 * Every row checked before it is sent (docs/import.md "Every row checked before it is sent"): against the spec's `UserInput` with the Ajv
 * set-up of `@institution-api/runtime/spec-ajv`, the one the reference server validates with, and
 * its errors phrased as the server phrases them in a `400` (field and rule, e.g. "network is
 * required when accountType is MOMO"). Loaded by the import only: the library never imports Ajv.
 *
 * @module
 */

import {
  createSpecSchemas,
  createUserInputErrors,
  fieldErrors,
} from '@institution-api/runtime/spec-ajv';
import { userDetailsModel } from '@institution-api/runtime/user-details';
import { type FieldError, openapiDocument, type Problem } from '@institution-api/types';
import type { Column } from './columns.js';
import { planColumns } from './columns.js';

/** The server's problem type for a body that breaks the spec (reference server README). */
const VALIDATION_TYPE = 'urn:institution-api:problem:validation-error';

/** A problem found here: the service's `Problem` without `status`, since nothing was sent. */
export type LocalProblem = Omit<Problem, 'status'>;

/** The local checks, compiled once per run. */
export interface RowCheck {
  /** The problem of a body the spec refuses, or undefined when it is a valid `UserInput`. */
  problem(body: unknown): LocalProblem | undefined;
  /** The columns of a CSV header, the spec's `UserInput` fields (throws for an unknown one). */
  columns(header: string[]): Column[];
}

/** Compiles `UserInput` from the bundled spec. */
export function createRowCheck(): RowCheck {
  const schemas = createSpecSchemas(openapiDocument);
  const validate = schemas.validator('UserInput');
  const explain = createUserInputErrors(schemas);
  return {
    problem(body) {
      if (validate(body)) return undefined;
      const errors = explain(body);
      return invalidRow(
        errors.length > 0 ? errors : fieldErrors(validate.errors ?? [], 'body', 'UserInput'),
      );
    },
    columns(header) {
      return planColumns(header, userDetailsModel.input);
    },
  };
}

/**
 * The problem of a row refused here, in the shape of the service's validation problem (so a
 * report reader treats both alike) but without `status`: nothing was sent.
 */
export function invalidRow(errors: FieldError[], detail?: string): LocalProblem {
  return {
    type: VALIDATION_TYPE,
    title: 'The row breaks the spec; it was not sent',
    detail:
      detail ??
      `${errors.length} rule${errors.length === 1 ? '' : 's'} of UserInput broken: ${errors
        .map((error) => error.message)
        .join('; ')}.`,
    errors,
  };
}
