import { forcedAnswer, parsePrefer } from '@institution-api/runtime/http';
import { operationsOf } from '@institution-api/runtime/spec';
import type { OpenApiDocument } from '@institution-api/types';
import type { Request, RequestHandler } from 'express';
import { validationProblem } from './problem.js';

/**
 * The sandbox's forced answers (spec: "Assumptions", "Sandbox: forcing an answer"; the `Prefer`
 * parameter of each operation): `Prefer: code=409` answers the operation's documented `409` with
 * its example body and the example values of its documented headers (`Retry-After`,
 * `RateLimit`…), as the mock (`@institution-api/mock`) does, through the same
 * `@institution-api/runtime/http` `forcedAnswer`. Placed after authentication (and the rate limit),
 * so only a request whose signature verified gets one, and before the body is parsed, so any
 * body can ask for any answer. A code the operation does not document is a `400` naming the
 * header. Nothing is written.
 *
 * On only in the server's sandbox mode (`SANDBOX_PREFER`; see config.ts): a production service
 * must never answer what a caller asks for.
 */
export function sandboxPrefer(document: OpenApiDocument): RequestHandler {
  const operationIds = new Map<string, string>();
  for (const { id, method, path } of operationsOf(document)) {
    if (id !== undefined) operationIds.set(`${method.toUpperCase()} ${path}`, id);
  }
  return (req, res, next) => {
    const preference = parsePrefer(req.get('prefer'));
    if (preference.code === undefined) return next();
    // The Express route (`/api/v1/external/users/:id`) as the spec's template (`…/{id}`).
    const template = String(req.route?.path ?? '').replace(/:(\w+)/g, '{$1}');
    const operationId = operationIds.get(`${req.method} ${template}`);
    if (operationId === undefined) return next();
    const forced = forcedAnswer(document, operationId, preference);
    if (!forced) return next();
    if ('error' in forced) return next(validationProblem([forced.error]));
    for (const [name, value] of Object.entries(forced.headers)) res.setHeader(name, value);
    res.status(forced.status);
    if (forced.body === undefined) {
      res.end();
      return;
    }
    res.type(forced.contentType ?? 'application/json').send(JSON.stringify(forced.body));
  };
}

/**
 * Whether the request asks for a forced answer (`Prefer: code=…`), which {@link sandboxPrefer}
 * gives without a write: for what must happen before any such answer (its nonce recorded).
 */
export function asksForForcedAnswer(req: Request): boolean {
  return parsePrefer(req.get('prefer')).code !== undefined;
}
