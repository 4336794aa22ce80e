import type { ErrorObject } from 'ajv';
import type { Exchange } from '../http/exchange.js';
import { type Contract, documentedResponse, isJsonMediaType } from '../spec/contract.js';
import type { Outcome } from './catalog.js';
import { matchingMediaType, mediaTypeOf } from './content-type-conformance.js';

/** Ajv's errors in a few words each (`/account/bank_name must be string`). */
export function describeErrors(errors: ErrorObject[] | null | undefined, limit = 3): string {
  const lines = (errors ?? []).map(
    (error) =>
      `${error.instancePath || '(root)'} ${error.message ?? 'is invalid'}${error.keyword === 'additionalProperties' ? ` (${String((error.params as { additionalProperty?: unknown }).additionalProperty)})` : ''}`,
  );
  const unique = [...new Set(lines)];
  return (
    unique.slice(0, limit).join('; ') +
    (unique.length > limit ? `; and ${unique.length - limit} more` : '')
  );
}

/**
 * `response_schema_conformance`: a JSON answer is valid against the schema the spec gives for its
 * operation, status and media type, through the shared Ajv set-up (so "valid" means what it
 * means to the reference server). The create and the update answers each have their own schema.
 */
export function responseSchemaConformance(
  contract: Contract,
  exchange: Exchange,
): Outcome | undefined {
  const { answer, operation } = exchange;
  if (!answer) return undefined;
  const documented = documentedResponse(operation, answer.status);
  const actualType = mediaTypeOf(answer.headers['content-type']);
  if (!documented || !actualType || !isJsonMediaType(actualType)) return undefined;
  const mediaType = matchingMediaType(Object.keys(documented.content), actualType);
  const schema = mediaType ? documented.content[mediaType] : undefined;
  if (!schema) return undefined;
  const check = 'response_schema_conformance';
  if (answer.json === undefined) {
    return {
      check,
      operation: operation.id,
      ok: false,
      message: `a ${answer.status} answer is not JSON`,
      expected: 'JSON',
      actual: answer.text.slice(0, 300),
    };
  }
  const validate = contract.validator(schema);
  if (validate(answer.json)) return { check, operation: operation.id, ok: true };
  return {
    check,
    operation: operation.id,
    ok: false,
    message: `the ${answer.status} answer does not match its schema: ${describeErrors(validate.errors)}`,
    expected: `the schema of ${operation.id} ${documented.status} ${mediaType}`,
    actual: answer.text.slice(0, 500),
  };
}
