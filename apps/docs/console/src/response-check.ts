/**
 * Whether an answer is what the spec documents for its status: the media type, JSON, and the
 * body against the status's component schema, with validators compiled at build time from the
 * shared set-up of `@institution-api/runtime/spec-ajv` (so "valid" means what the server means).
 *
 * @module
 */
import type { ConsoleOperation } from './spec-types.js';

/** One Ajv error, as the standalone validators report it. */
export interface SchemaError {
  instancePath: string;
  keyword: string;
  message?: string;
  params?: Record<string, unknown>;
}

/** A compiled validator: Ajv's standalone function, which sets `errors` after each call. */
export type Validator = ((data: unknown) => boolean) & { errors?: SchemaError[] | null };

/** The verdict on one answer. */
export interface ResponseCheck {
  valid: boolean;
  /** The schema the body was checked against, when the spec names one. */
  schema?: string;
  /** Why it is not valid: one line per broken rule, naming the field and the rule. */
  problems: string[];
}

/** The most rules listed; a body breaking more says how many it left out. */
const maxProblems = 10;

/**
 * Checks an answer against what `operation` documents for its status.
 *
 * @param contentType the answer's `Content-Type`, or null
 * @param text the answer's body as received
 */
export function checkResponse(
  operation: ConsoleOperation,
  validators: Record<string, Validator>,
  status: number,
  contentType: string | null,
  text: string,
): ResponseCheck {
  const documented = operation.responses[String(status)];
  if (!documented) {
    return {
      valid: false,
      problems: [`status ${status} is not documented for ${operation.operationId}`],
    };
  }
  const { mediaType, schema } = documented;
  if (!mediaType || !schema) {
    return text === ''
      ? { valid: true, problems: [] }
      : { valid: false, problems: [`the spec documents no body for ${status}, and one came`] };
  }
  const received = contentType?.split(';')[0]?.trim().toLowerCase();
  if (received !== mediaType) {
    return {
      valid: false,
      schema,
      problems: [`Content-Type is ${received ?? 'missing'}; the spec says ${mediaType}`],
    };
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { valid: false, schema, problems: ['the body is not JSON'] };
  }
  const validate = validators[schema];
  if (!validate) return { valid: false, schema, problems: [`no validator for ${schema}`] };
  if (validate(body)) return { valid: true, schema, problems: [] };
  const errors = validate.errors ?? [];
  const problems = errors.slice(0, maxProblems).map(describeError);
  if (errors.length > maxProblems) problems.push(`and ${errors.length - maxProblems} more`);
  return { valid: false, schema, problems };
}

/** `/account/account_type: must be equal to one of the allowed values (enum)`. */
export function describeError({ instancePath, keyword, message, params }: SchemaError): string {
  const extra =
    typeof params?.additionalProperty === 'string' ? ` "${params.additionalProperty}"` : '';
  return `${instancePath || '(the body)'}: ${message ?? 'is not valid'}${extra} (${keyword})`;
}
