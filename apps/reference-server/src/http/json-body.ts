/// <reference lib="es2024.string" />
// For String.prototype.isWellFormed (ES2024, Node 20+): the base tsconfig's lib stops at ES2023.

import { fieldName } from '@institution-api/types/spec-ajv';
import type { RequestHandler } from 'express';
import { HttpProblem, problemKinds, validationProblem } from './problem.js';

/** Keys that could reach an object's prototype if a later step merged the body into an object. */
const forbiddenKeys = new Set(['__proto__', 'constructor', 'prototype']);

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Turns the authenticated raw body into JSON (spec: every body is `application/json`):
 * - another content type, or a charset other than UTF-8 → 415;
 * - no body at all → 400 validation error on `/body`;
 * - bytes that are not UTF-8 JSON → 400 `malformed-json`;
 * - a `__proto__`, `constructor` or `prototype` key anywhere → 400 naming it. `JSON.parse` itself
 *   is safe, but such keys are a prototype-pollution attempt against whatever handles the object
 *   next (secure-json-parse refuses them for the same reason);
 * - a NUL character (U+0000) in any string → 400 naming the field: PostgreSQL text cannot hold it,
 *   so it would otherwise fail in the database as a 500;
 * - a string that is not well-formed Unicode (a lone surrogate, which JSON can write as `"\ud800"`)
 *   → 400 naming the field: it has no UTF-8 form, so the database would store U+FFFD instead, and
 *   every string must round-trip byte for byte (DECISIONS.md "text").
 * Shapes (a top-level array, a missing field) are left to validation against the spec.
 */
export function parseJsonBody(): RequestHandler {
  return (req, _res, next) => {
    if (!isUtf8Json(req.get('content-type'))) {
      throw new HttpProblem(
        problemKinds.unsupportedMediaType,
        'The request body must be sent as application/json.',
      );
    }
    const raw: Buffer = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    if (raw.length === 0) {
      throw validationProblem([{ path: '/body', message: 'the body is required (a JSON object)' }]);
    }
    let text: string;
    let body: unknown;
    try {
      text = utf8.decode(raw);
      body = JSON.parse(text);
    } catch {
      throw new HttpProblem(problemKinds.malformedJson, 'The request body is not valid JSON.');
    }
    const refused = mayHoldRefusedContent(text) ? findRefusedContent(body) : undefined;
    if (refused !== undefined) throw validationProblem([refused]);
    req.body = body;
    next();
  };
}

/**
 * Whether the JSON text could parse to anything {@link findRefusedContent} refuses; when it cannot,
 * the walk over the parsed value (a fifth of this middleware's time, issue #9) is skipped. Sound
 * because the text is strict JSON decoded from strict UTF-8: a NUL can only be written `\u0000`
 * (JSON forbids raw control characters), a lone surrogate only as a `\uD8xx` escape (strict UTF-8
 * has no encoding for one), and a forbidden key either literally or with a `\u` escape (no other
 * JSON escape yields a letter or `_`).
 */
function mayHoldRefusedContent(text: string): boolean {
  return (
    text.includes('\\u') ||
    text.includes('__proto__') ||
    text.includes('constructor') ||
    text.includes('prototype')
  );
}

/** `application/json`, with no charset or `charset=utf-8` (RFC 8259 section 8.1: JSON is UTF-8). */
function isUtf8Json(header: string | undefined): boolean {
  if (header === undefined) return false;
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
 * The first forbidden key, or string with a NUL or a lone surrogate, as a field error, walking
 * iteratively: a 64 KiB body can nest about 32,000 levels deep, too deep for recursion.
 */
function findRefusedContent(root: unknown): { path: string; message: string } | undefined {
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
      const child = `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
      if (forbiddenKeys.has(key) || key.includes('\u0000') || !key.isWellFormed()) {
        return { path: `/body${child}`, message: `${fieldName(child)} is not allowed as a key` };
      }
      stack.push([(value as Record<string, unknown>)[key], child]);
    }
  }
  return undefined;
}
