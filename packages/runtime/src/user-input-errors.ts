/**
 * The field errors of a `UserInput` body, phrased as the account rules of the spec's `UserInput`: what the reference
 * server answers in a `400` and what the CLI's import reports for a row it does not send.
 *
 * @module
 */

import type { FieldError } from '@institution-api/types';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { fieldErrors, unique } from './field-errors.js';
import { componentName } from './spec/index.js';
import type { SpecSchemas } from './spec-schemas.js';

/** The property whose value picks the account variant of `UserInput` (spec: `UserInput.oneOf`). */
const discriminator = 'accountType';

interface Variant {
  /** The variant's `accountType`: its `const`, or null for the variant without an account. */
  accountType: string | null;
  validate: ValidateFunction;
  required: readonly string[];
}

/**
 * The field errors of a `UserInput` body, one per broken rule, in the words of the spec's
 * `UserInput` (its description states the account rules).
 *
 * A body that breaks the `oneOf` of account variants makes Ajv (and so express-openapi-validator)
 * report the errors of every variant plus "must match exactly one schema in oneOf"
 * (ARCHITECTURE.md, "What the code relies on in its libraries"). Instead, the body is checked
 * against the fields of `UserInput` without the `oneOf`, and then against the ONE variant its
 * `accountType` selects: `MOMO` → MomoAccountDetails,
 * `BANK` → BankAccountDetails, absent or null → NoAccountDetails; any other value is already an
 * enum error on `/body/accountType`. The variant's errors are phrased as the rules:
 * "network is required when accountType is MOMO", "accountName is required when accountType is
 * given", "accountType is required when account details are given".
 */
export function createUserInputErrors(schemas: SpecSchemas): (body: unknown) => FieldError[] {
  const fields = schemas.derivedValidator('UserInput', ({ oneOf: _variants, ...rest }) => rest);
  const variants = accountVariants(schemas);
  const accountVariantsRequire = intersection(
    variants.filter((v) => v.accountType !== null).map((v) => v.required),
  );

  return (body) => {
    const fieldErrorList = fields(body)
      ? []
      : fieldErrors(fields.errors ?? [], 'body', 'UserInput');
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return fieldErrorList;
    const accountType = (body as Record<string, unknown>)[discriminator] ?? null;
    const variant = variants.find((v) => v.accountType === accountType);
    if (!variant || variant.validate(body)) return fieldErrorList;
    const variantErrors = unique(
      (variant.validate.errors ?? []).map((error) =>
        ruleError(error, variant, body as Record<string, unknown>, accountVariantsRequire),
      ),
    );
    // One field, one voice: the variant's rule replaces the generic message on the same field.
    const ruled = new Set(variantErrors.map((e) => e.path));
    return [...variantErrors, ...fieldErrorList.filter((e) => !ruled.has(e.path))];
  };
}

/** The variants of `UserInput.oneOf`, keyed by the `accountType` each one admits. */
function accountVariants(schemas: SpecSchemas): Variant[] {
  const oneOf = schemas.schema('UserInput').oneOf as unknown[] | undefined;
  if (!oneOf) throw new Error('UserInput has no oneOf of account variants.');
  return oneOf.map((ref) => {
    const name = componentName(ref, 'schemas');
    if (name === undefined)
      throw new Error('An account variant of UserInput is not a named schema.');
    const schema = schemas.schema(name) as {
      required?: string[];
      properties?: Record<string, { const?: string; type?: string }>;
    };
    const property = schema.properties?.[discriminator];
    if (property?.const === undefined && property?.type !== 'null') {
      throw new Error(`The account variant ${name} does not fix ${discriminator}.`);
    }
    return {
      accountType: property.const ?? null,
      validate: schemas.validator(name),
      required: schema.required ?? [],
    };
  });
}

function ruleError(
  error: ErrorObject,
  variant: Variant,
  body: Record<string, unknown>,
  alwaysRequired: readonly string[],
): FieldError {
  if (variant.accountType === null) {
    return {
      path: `/body/${discriminator}`,
      message: `${discriminator} is required when account details are given`,
    };
  }
  const field =
    error.keyword === 'required'
      ? String(error.params.missingProperty)
      : error.instancePath.split('/')[1];
  const isTopLevel = field !== undefined && error.instancePath.split('/').length <= 2;
  if (
    field !== undefined &&
    isTopLevel &&
    variant.required.includes(field) &&
    body[field] == null
  ) {
    const when = alwaysRequired.includes(field) ? 'is given' : `is ${variant.accountType}`;
    return {
      path: `/body/${field}`,
      message: `${field} is required when ${discriminator} ${when}`,
    };
  }
  if (field !== undefined && error.keyword === 'type' && error.params.type === 'null') {
    return {
      path: `/body/${field}`,
      message: `${field} must be absent or null when ${discriminator} is ${variant.accountType}`,
    };
  }
  return fieldErrors([error], 'body', 'UserInput')[0] ?? { path: '/body', message: String(error) };
}

function intersection(lists: (readonly string[])[]): string[] {
  const [first = [], ...rest] = lists;
  return first.filter((item) => rest.every((list) => list.includes(item)));
}
