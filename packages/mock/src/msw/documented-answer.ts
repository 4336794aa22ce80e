/**
 * Answers typed from the spec, for handlers of your own that override the mock: a status the
 * operation does not document, or a body that is not its schema, fails to compile (the generated
 * `operations` of `@institution-api/types`).
 *
 * @module
 */

import { contentOf, isObject, operationById } from '@institution-api/runtime/spec';
import { openapiDocument, type operations } from '@institution-api/types';

/** The operations of the spec, by `operationId`. */
export type OperationId = keyof operations;

type Responses<Op extends OperationId> = operations[Op]['responses'];

/** The statuses the spec documents for `Op`. */
export type DocumentedStatus<Op extends OperationId> = Extract<keyof Responses<Op>, number>;

/** The body the spec documents for `Op` answering `S` (its one media type's schema). */
export type DocumentedBody<
  Op extends OperationId,
  S extends DocumentedStatus<Op>,
> = Responses<Op>[S] extends { content: infer Content } ? Content[keyof Content] : never;

/** An answer the spec allows for `Op`, made by {@link documentedAnswer}. */
export type DocumentedAnswer<Op extends OperationId> = {
  readonly operation: Op;
  readonly status: DocumentedStatus<Op>;
  readonly body: unknown;
  readonly headers: Record<string, string>;
};

/**
 * An answer to `operation` with a documented `status` and a `body` of the documented schema; it
 * compiles only when the spec allows it. `headers` are added as given (`Retry-After`, …).
 */
export function documentedAnswer<Op extends OperationId, S extends DocumentedStatus<Op>>(
  operation: Op,
  status: S,
  body: DocumentedBody<Op, S>,
  init: { headers?: Record<string, string> } = {},
): DocumentedAnswer<Op> {
  return { operation, status, body, headers: init.headers ?? {} };
}

/** Where the spec serves `operation`: its method and path template. */
export function operationRoute(operation: OperationId): { method: string; template: string } {
  const { method, path } = operationById(openapiDocument, operation);
  return { method, template: path };
}

/** The media type the spec gives the answer `status` of `operation`. */
function mediaTypeOf(operation: OperationId, status: number): string | undefined {
  const { operation: found } = operationById(openapiDocument, operation);
  const responses = isObject(found.responses) ? found.responses : {};
  return Object.keys(contentOf(openapiDocument, responses[String(status)]))[0];
}

/** The `Response` of a documented answer, with the spec's media type. */
export function toResponse<Op extends OperationId>(answer: DocumentedAnswer<Op>): Response {
  const mediaType = mediaTypeOf(answer.operation, answer.status);
  return new Response(answer.body === undefined ? null : JSON.stringify(answer.body), {
    status: answer.status,
    headers: {
      ...(mediaType ? { 'content-type': `${mediaType}; charset=utf-8` } : {}),
      ...answer.headers,
    },
  });
}
