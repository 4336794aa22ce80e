import { isUtf8Json, mayHoldRefusedContent, refusedContent } from '@institution-api/runtime/http';
import type { RequestHandler } from 'express';
import { HttpProblem, problemKinds, validationProblem } from './problem.js';

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
 *   every string must round-trip byte for byte (spec Assumptions, "Text").
 * Shapes (a top-level array, a missing field) are left to validation against the spec. The checks
 * are `@institution-api/runtime/http`'s, which the mock refuses bodies with too.
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
    const refused = mayHoldRefusedContent(text) ? refusedContent(body) : undefined;
    if (refused !== undefined) throw validationProblem([refused]);
    req.body = body;
    next();
  };
}
