/**
 * Ajv's errors in the words of the spec's schemas: `{ path, message }` field errors of the
 * spec's `FieldError`, naming the field and the rule. Shared by the reference server (its `400`
 * answers) and the CLI's import (rows checked before they are sent), so both say the same.
 *
 * @module
 */

import type { FieldError } from '@institution-api/types';
import type { ErrorObject } from 'ajv';
import { pointerOf, pointerSegments } from './spec/index.js';

/**
 * Messages for the spec's string patterns, by the `title` of the schema that declares them, so a
 * client reads the rule, not a regular expression (spec Assumptions, "mobileNumber", "ghanaCardNumber").
 */
const patternRules: Record<string, string> = {
  GhanaMobileNumber: 'must be a Ghanaian mobile number (0XXXXXXXXX, 233XXXXXXXXX or +233XXXXXXXXX)',
  GhanaCardNumber: 'must be a Ghana Card number (GHA-123456789-0; dashes and letter case optional)',
};

/** Messages for the formats the spec uses. */
const formatRules: Record<string, string> = {
  email: 'must be an e-mail address',
  date: 'must be a date (YYYY-MM-DD) from 0001-01-01 to 9999-12-31',
  'date-time': 'must be a date-time (RFC 3339)',
  uri: 'must be an absolute URL',
  'uri-reference': 'must be a URI reference',
  uuid: 'must be a UUID',
  double: 'must be a finite number',
};

const typeNames: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'an integer',
  boolean: 'a boolean',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

/**
 * How a field is named in messages: its JSON Pointer below the body with `.` between segments
 * (`kyc.validFrom`), or the parameter's name.
 */
export function fieldName(pointer: string): string {
  // A parameter's name comes without the leading `/` of a pointer.
  return pointerSegments(`/${pointer.replace(/^\//, '')}`)
    .filter(Boolean)
    .join('.');
}

/** `a, b or c` */
function oneOfList(values: readonly unknown[]): string {
  const words = values.map((value) => (value === null ? 'null' : String(value)));
  return words.length < 2
    ? (words[0] ?? '')
    : `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
}

/**
 * One Ajv error as a `{ path, message }` of the spec's `FieldError`: the path is a JSON Pointer
 * prefixed by the request part (`/body/network`), and the message names the field and the rule
 * ("firstName must be at most 100 characters"). `part` is `body`, `params`, `query`...; `schemaName`
 * names the object in "x is not a field of UserInput".
 */
function fieldError(error: ErrorObject, part: string, schemaName: string): FieldError {
  const at = error.instancePath;
  const params = error.params as Record<string, unknown>;
  const named = (pointer: string, rule: string) => ({
    path: `/${part}${pointer}`,
    message: pointer === '' ? `the ${part} ${rule}` : `${fieldName(pointer)} ${rule}`,
  });
  switch (error.keyword) {
    case 'required':
      return named(`${at}/${escapeSegment(String(params.missingProperty))}`, 'is required');
    case 'additionalProperties': {
      const owner = (error.parentSchema as { title?: string } | undefined)?.title ?? schemaName;
      const pointer = `${at}/${escapeSegment(String(params.additionalProperty))}`;
      return {
        path: `/${part}${pointer}`,
        message: `${fieldName(pointer)} is not a field of ${owner}`,
      };
    }
    case 'type': {
      const types = ([] as unknown[]).concat(params.type).map((t) => typeNames[String(t)] ?? t);
      if (at === '' && part === 'body') return named('', `must be a JSON object (${schemaName})`);
      return named(at, `must be ${oneOfList(types)}`);
    }
    case 'enum':
      return named(at, `must be one of ${oneOfList(params.allowedValues as unknown[])}`);
    case 'const':
      return named(at, `must be ${String(params.allowedValue)}`);
    case 'pattern': {
      const title = (error.parentSchema as { title?: string } | undefined)?.title;
      return named(at, patternRules[title ?? ''] ?? `must match the pattern ${params.pattern}`);
    }
    case 'format': {
      const format = String(params.format);
      return named(at, formatRules[format] ?? `must be in the ${format} format`);
    }
    case 'minLength':
      return named(
        at,
        params.limit === 1 ? 'must not be empty' : `must be at least ${params.limit} characters`,
      );
    case 'maxLength':
      return named(at, `must be at most ${params.limit} characters`);
    case 'minimum':
      return named(at, `must be greater than or equal to ${params.limit}`);
    case 'maximum':
      return named(at, `must be less than or equal to ${params.limit}`);
    case 'exclusiveMinimum':
      return named(at, `must be greater than ${params.limit}`);
    case 'exclusiveMaximum':
      return named(at, `must be less than ${params.limit}`);
    default:
      return named(at, error.message ?? `breaks the rule ${error.keyword}`);
  }
}

/**
 * Ajv's errors for one validation, as field errors, with the noise of alternatives removed:
 * a failed nullable `anyOf` (`enum` or `null`) becomes one "must be one of A, B or null", a type
 * error beside an enum error on the same field is dropped (the enum says it all), and duplicates go.
 */
export function fieldErrors(errors: ErrorObject[], part: string, schemaName: string): FieldError[] {
  const anyOfAt = new Set(errors.filter((e) => e.keyword === 'anyOf').map((e) => e.instancePath));
  const enumAt = new Set(errors.filter((e) => e.keyword === 'enum').map((e) => e.instancePath));
  const result: FieldError[] = [];
  for (const error of errors) {
    const at = error.instancePath;
    if (anyOfAt.has(at)) result.push(anyOfError(errors, at, part));
    else if (!(error.keyword === 'type' && enumAt.has(at))) {
      result.push(fieldError(error, part, schemaName));
    }
  }
  return unique(result);
}

/** One message for every error Ajv reports at a field whose `anyOf` failed. */
function anyOfError(errors: ErrorObject[], at: string, part: string): FieldError {
  const branches = errors.filter((e) => e.instancePath === at && e.keyword !== 'anyOf');
  const allowed: unknown[] = [];
  const types: unknown[] = [];
  for (const { keyword, params } of branches) {
    if (keyword === 'enum') allowed.push(...(params.allowedValues as unknown[]));
    if (keyword === 'type') types.push(...([] as unknown[]).concat(params.type));
  }
  if (types.includes('null')) allowed.push(null);
  const rule = allowed.some((value) => value !== null)
    ? `one of ${oneOfList(allowed)}`
    : oneOfList(types.map((t) => typeNames[String(t)] ?? t));
  return { path: `/${part}${at}`, message: `${fieldName(at)} must be ${rule}` };
}

/** Field errors without repeats, in their first order. */
export function unique(errors: FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errors.filter((e) => {
    const key = `${e.path}\n${e.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** One segment of a JSON Pointer, escaped (`a/b` → `a~1b`). */
function escapeSegment(segment: string): string {
  return pointerOf([segment]).slice(2);
}
