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
 *   next (secure-json-parse refuses them for the same reason).
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
    let body: unknown;
    try {
      body = JSON.parse(utf8.decode(raw));
    } catch {
      throw new HttpProblem(problemKinds.malformedJson, 'The request body is not valid JSON.');
    }
    const forbidden = findForbiddenKey(body);
    if (forbidden !== undefined) {
      const key = forbidden.slice(forbidden.lastIndexOf('/') + 1);
      throw validationProblem([
        { path: `/body${forbidden}`, message: `${key} is not allowed as a key` },
      ]);
    }
    req.body = body;
    next();
  };
}

/** `application/json`, with no charset or `charset=utf-8` (RFC 8259 section 8.1: JSON is UTF-8). */
function isUtf8Json(header: string | undefined): boolean {
  if (header === undefined) return false;
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
 * The JSON Pointer of the first forbidden key, walking iteratively: a 64 KiB body can nest about
 * 32,000 levels deep, too deep for recursion.
 */
function findForbiddenKey(root: unknown): string | undefined {
  const stack: [unknown, string][] = [[root, '']];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const [value, pointer] = item;
    if (value === null || typeof value !== 'object') continue;
    for (const key of Object.keys(value)) {
      const child = `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
      if (forbiddenKeys.has(key)) return child;
      stack.push([(value as Record<string, unknown>)[key], child]);
    }
  }
  return undefined;
}
