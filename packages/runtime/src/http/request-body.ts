/// <reference lib="es2024.string" />
// For String.prototype.isWellFormed (ES2024, Node 20+): the base tsconfig's lib stops at ES2023.
/**
 * What the service refuses in a request body before it validates it against the spec (spec:
 * "Assumptions", "Text"; every body is `application/json`), shared by the reference server and
 * the mock so both refuse the same bodies with the same field errors.
 *
 * @module
 */

import type { FieldError } from '@institution-api/types';
import { fieldName } from '../field-errors.js';
import { pointerOf } from '../spec/index.js';

/** The largest accepted request body (spec: "Assumptions", "Field bounds": 64 KiB, `413` above). */
export const maxBodyBytes = 64 * 1024;

/** Keys that could reach an object's prototype if a later step merged the body into an object. */
const forbiddenKeys = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * `application/json`, with no charset or `charset=utf-8` (RFC 8259 §8.1: JSON is UTF-8);
 * anything else is a `415`.
 */
export function isUtf8Json(header: string | null | undefined): boolean {
  if (header === undefined || header === null) return false;
  if (header === 'application/json') return true;
  const [mediaType = '', ...parameters] = header
    .split(';')
    .map((part) => part.trim().toLowerCase());
  if (mediaType !== 'application/json') return false;
  return parameters.every((parameter) => {
    const [name, value = ''] = parameter.split('=', 2).map((part) => part.trim());
    return name !== 'charset' || value.replaceAll('"', '') === 'utf-8';
  });
}

/**
 * Whether the JSON text could parse to anything {@link refusedContent} refuses; when it cannot,
 * the walk over the parsed value is skipped. Sound because the text is strict JSON decoded from
 * strict UTF-8: a NUL can only be written `\u0000`, a lone surrogate only as a `\uD8xx` escape,
 * and a forbidden key either literally or with a `\u` escape.
 */
export function mayHoldRefusedContent(text: string): boolean {
  return (
    text.includes('\\u') ||
    text.includes('__proto__') ||
    text.includes('constructor') ||
    text.includes('prototype')
  );
}

/**
 * The first thing of a parsed body the service refuses, as a field error:
 * - a `__proto__`, `constructor` or `prototype` key anywhere (a prototype-pollution attempt
 *   against whatever handles the object next);
 * - a NUL character (U+0000) in any string or key (PostgreSQL text cannot hold it);
 * - a string that is not well-formed Unicode (a lone surrogate): it has no UTF-8 form, and every
 *   string must round-trip byte for byte (spec: "Assumptions", "Text").
 * Walks iteratively: a 64 KiB body can nest about 32,000 levels deep, too deep for recursion.
 */
export function refusedContent(root: unknown): FieldError | undefined {
  const stack: [unknown, string][] = [[root, '']];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const [value, pointer] = item;
    if (typeof value === 'string') {
      const rule = value.includes('\u0000')
        ? 'must not contain the NUL character'
        : value.isWellFormed()
          ? undefined
          : 'must be well-formed Unicode (it has a lone surrogate)';
      if (rule === undefined) continue;
      const name = pointer === '' ? 'the body' : fieldName(pointer);
      return { path: `/body${pointer}`, message: `${name} ${rule}` };
    }
    if (value === null || typeof value !== 'object') continue;
    for (const key of Object.keys(value)) {
      const child = `${pointer}${pointerOf([key]).slice(1)}`;
      if (forbiddenKeys.has(key) || key.includes('\u0000') || !key.isWellFormed()) {
        return { path: `/body${child}`, message: `${fieldName(child)} is not allowed as a key` };
      }
      stack.push([(value as Record<string, unknown>)[key], child]);
    }
  }
  return undefined;
}

/**
 * A request error outside the body (a path parameter, the query, a header), as express-openapi-
 * validator reports it (`/params/id`, Ajv's message), in plain words: a field error naming it.
 */
export function parameterError({ path, message }: { path: string; message: string }): FieldError {
  const [, part = '', ...rest] = path.split('/');
  const name = fieldName(rest.join('/')) || part;
  const format = /must match format "([^"]+)"/.exec(message)?.[1];
  if (format === 'uuid') return { path, message: `${name} must be a UUID` };
  const unknownQuery = /^Unknown query parameter '(.+)'$/.exec(message)?.[1];
  if (unknownQuery !== undefined) {
    return { path, message: `${unknownQuery} is not a query parameter of this operation` };
  }
  return { path, message: `${name} ${message}` };
}
