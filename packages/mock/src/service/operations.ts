/**
 * The operations of the spec as routes: each path template as a pattern, its method and
 * `operationId`, and the schemas of its path parameters, read from the bundled spec so that a new
 * operation or parameter needs no change here.
 *
 * @module
 */
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

const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function resolve(document: OpenApiDocument, value: unknown): unknown {
  if (!isObject(value) || typeof value.$ref !== 'string' || !value.$ref.startsWith('#/')) {
    return value;
  }
  const target = value.$ref
    .slice(2)
    .split('/')
    .reduce<unknown>((node, segment) => (isObject(node) ? node[segment] : undefined), document);
  return resolve(document, target);
}

/** Every operation of `document`. */
export function operationsOf(document: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries(document.paths)) {
    const shared = Array.isArray(item.parameters) ? item.parameters : [];
    for (const method of methods) {
      const operation = item[method];
      if (!isObject(operation) || typeof operation.operationId !== 'string') continue;
      const own = Array.isArray(operation.parameters) ? operation.parameters : [];
      const parameters = [...shared, ...own]
        .map((parameter) => resolve(document, parameter))
        .filter(isObject);
      const names = [...template.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] as string);
      const source = template
        .split(/\{[^}]+\}/)
        .map((literal) => literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('([^/]+)');
      const content = resolve(document, operation.requestBody);
      const media = isObject(content) && isObject(content.content) ? content.content : {};
      const schema = isObject(media['application/json']) ? media['application/json'].schema : {};
      const body =
        isObject(schema) && typeof schema.$ref === 'string'
          ? schema.$ref.replace('#/components/schemas/', '')
          : undefined;
      operations.push({
        ...(body ? { body } : {}),
        id: operation.operationId,
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
      });
    }
  }
  return operations;
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
