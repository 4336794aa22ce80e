/**
 * The validation of a request against the spec, with the field errors the reference server
 * answers: the body through `@institution-api/runtime/spec-ajv` (the same Ajv over the same spec,
 * and the same distillation of the account variants), path parameters and the query as
 * express-openapi-validator reports them there, in the same words (`parameterError`).
 *
 * @module
 */

import { parameterError } from '@institution-api/runtime/http';
import type { FieldError, OpenApiDocument } from '@institution-api/types';
import type { ValidateFunction } from 'ajv';
import type { Operation } from './operations.js';

/** What is validated of one request. */
export interface RequestParts {
  /** The path parameters, percent-decoded, in the operation's order. */
  values: string[];
  query: URLSearchParams;
  headers: Headers;
  body: unknown;
}

/** The errors of a request to `operation`; none when it is valid. */
export type RequestValidator = ((
  operation: Operation,
  parts: RequestParts,
) => Promise<FieldError[]>) & {
  /** Loads Ajv and compiles the validators now rather than on the first request. */
  warm(): Promise<void>;
};

/**
 * The validator of requests to `document`'s operations. Body errors come first, then those of the
 * path parameters and the query, as the server lists them. Ajv compiles the spec's schemas on the
 * first request (or {@link RequestValidator.warm}), not before: a test that never sends a valid
 * signature, and a server's start, do not wait for it.
 */
export function createRequestValidator(document: OpenApiDocument): RequestValidator {
  let compiled: ReturnType<typeof compile> | undefined;
  const load = () => {
    compiled ??= compile(document);
    return compiled;
  };
  const validate = async (operation: Operation, parts: RequestParts) =>
    (await load())(operation, parts);
  return Object.assign(validate, {
    async warm() {
      await load();
    },
  });
}

async function compile(document: OpenApiDocument) {
  // Ajv and its formats load here, not at import: a server listens before they have loaded.
  const { createSpecSchemas, createUserInputErrors, fieldErrors } = await import(
    '@institution-api/runtime/spec-ajv'
  );
  const schemas = createSpecSchemas(document);
  const userInputErrors = createUserInputErrors(schemas);
  const parameterValidators = new Map<string, ValidateFunction>();
  const parameterValidator = (schema: Record<string, unknown>) => {
    const key = JSON.stringify(schema);
    let validate = parameterValidators.get(key);
    if (!validate) {
      validate = schemas.compile(schema);
      parameterValidators.set(key, validate);
    }
    return validate;
  };
  return (operation: Operation, parts: RequestParts): FieldError[] => {
    // An unknown query parameter is refused alone, before anything else is looked at, as
    // express-openapi-validator refuses it (the first one only).
    const unknown = [...parts.query.keys()].find((name) => !operation.query.has(name));
    if (unknown !== undefined) {
      return [
        parameterError({
          path: `/query/${unknown}`,
          message: `Unknown query parameter '${unknown}'`,
        }),
      ];
    }
    const errors: FieldError[] = [];
    const bodySchema = operation.body;
    const validateBody = bodySchema ? schemas.validator(bodySchema) : undefined;
    if (bodySchema && validateBody && !validateBody(parts.body)) {
      // The account variants of UserInput distilled as the server does, one error per rule.
      const distilled = bodySchema === 'UserInput' ? userInputErrors(parts.body) : [];
      errors.push(
        ...(distilled.length > 0
          ? distilled
          : fieldErrors(validateBody.errors ?? [], 'body', bodySchema)),
      );
    }
    // express-openapi-validator lists a header's errors before a path parameter's.
    for (const { name, schema } of operation.headers) {
      const value = parts.headers.get(name);
      const validate = value === null ? undefined : parameterValidator(schema);
      if (!validate || validate(value)) continue;
      for (const error of validate.errors ?? []) {
        const path = `/headers/${name.toLowerCase()}`;
        errors.push(parameterError({ path, message: error.message ?? '' }));
      }
    }
    operation.parameters.forEach(({ name, schema }, index) => {
      const validate = parameterValidator(schema);
      if (validate(parts.values[index])) return;
      for (const error of validate.errors ?? []) {
        errors.push(parameterError({ path: `/params/${name}`, message: error.message ?? '' }));
      }
    });
    return errors;
  };
}
