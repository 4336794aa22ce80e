/**
 * Answers typed from the spec, for handlers of your own that override the mock: a status the
 * operation does not document, or a body that is not its schema, fails to compile (the generated
 * `operations` of `@institution-api/types`).
 *
 * @module
 */
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
export interface DocumentedAnswer<Op extends OperationId> {
  readonly operation: Op;
  readonly status: DocumentedStatus<Op>;
  readonly body: unknown;
  readonly headers: Record<string, string>;
}

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

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Where the spec serves `operation`: its method and path template. */
export function operationRoute(operation: OperationId): { method: string; template: string } {
  for (const [template, item] of Object.entries(openapiDocument.paths)) {
    for (const [method, value] of Object.entries(item)) {
      if (isObject(value) && value.operationId === operation) return { method, template };
    }
  }
  throw new Error(`The spec has no operation ${operation}.`);
}

/** The media type the spec gives the answer `status` of `operation`. */
function mediaTypeOf(operation: OperationId, status: number): string | undefined {
  const { method, template } = operationRoute(operation);
  const item = openapiDocument.paths[template] as Json;
  const responses = (item[method] as Json).responses as Json;
  let response = responses[String(status)];
  if (isObject(response) && typeof response.$ref === 'string') {
    const name = response.$ref.split('/').at(-1) ?? '';
    response = (openapiDocument.components.responses as Json)[name];
  }
  return isObject(response) && isObject(response.content)
    ? Object.keys(response.content)[0]
    : undefined;
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
