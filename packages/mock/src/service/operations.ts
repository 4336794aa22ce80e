/**
 * The operations of the spec as routes: each path template as a pattern, its method and
 * `operationId`, and the schemas of its path parameters, read from the bundled spec so that a new
 * operation or parameter needs no change here.
 *
 * @module
 */

import {
  componentName,
  contentOf,
  isObject,
  parametersOf,
  operationsOf as specOperations,
} from '@institution-api/runtime/spec';
import type { OpenApiDocument } from '@institution-api/types';

/** One operation of the spec. */
export interface Operation {
  id: string;
  method: string;
  /** The path template, `/api/v1/external/users/{id}`. */
  template: string;
  pattern: RegExp;
  /** The path parameters, in the order of the template, with their schemas. */
  parameters: { name: string; schema: Record<string, unknown> }[];
  /** The query parameters it declares, by name. */
  query: Set<string>;
  /** The header parameters it declares (`Prefer`), with their schemas. */
  headers: { name: string; schema: Record<string, unknown> }[];
  /** The component schema of its JSON body (`UserInput`), if it takes one. */
  body?: string;
}

/** Every operation of `document`. */
export function operationsOf(document: OpenApiDocument): Operation[] {
  return specOperations(document).flatMap((found) => {
    if (found.id === undefined) return [];
    const { id, method, path: template, operation } = found;
    const parameters = parametersOf(document, found);
    const names = [...template.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] as string);
    const source = template
      .split(/\{[^}]+\}/)
      .map((literal) => literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('([^/]+)');
    const body = componentName(
      contentOf(document, operation.requestBody)['application/json']?.schema,
      'schemas',
    );
    return [
      {
        ...(body ? { body } : {}),
        id,
        method: method.toUpperCase(),
        template,
        pattern: new RegExp(`^${source}$`),
        parameters: names.map((name) => {
          const declared = parameters.find((p) => p.in === 'path' && p.name === name);
          return { name, schema: isObject(declared?.schema) ? declared.schema : {} };
        }),
        headers: parameters
          .filter((p) => p.in === 'header')
          .map((p) => ({ name: String(p.name), schema: isObject(p.schema) ? p.schema : {} })),
        query: new Set(parameters.filter((p) => p.in === 'query').map((p) => String(p.name))),
      },
    ];
  });
}

/** What a request's path is, among the operations. */
export type Route =
  | { kind: 'operation'; operation: Operation; values: string[] }
  | { kind: 'method-not-allowed'; allowed: string[] }
  | { kind: 'not-found' };

/** The operation `method` and `path` name (path parameters still percent-encoded). */
export function route(operations: readonly Operation[], method: string, path: string): Route {
  const matching = operations
    .map((operation) => ({ operation, match: operation.pattern.exec(path) }))
    .filter((candidate) => candidate.match !== null);
  if (matching.length === 0) return { kind: 'not-found' };
  const found = matching.find((candidate) => candidate.operation.method === method);
  if (!found?.match) {
    return { kind: 'method-not-allowed', allowed: matching.map((c) => c.operation.method) };
  }
  return { kind: 'operation', operation: found.operation, values: found.match.slice(1) };
}
