/**
 * The operations of a bundled OpenAPI 3.1 document, read from its Path Items (`$ref`s followed):
 * each one's method, path template and Operation Object, and its parameters.
 *
 * @module
 */
import { dereference, isObject, type JsonObject } from './local-ref.js';

/** The HTTP methods a Path Item may hold, in the order OAS 3.1 lists them. */
export const httpMethods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** One operation of the document. */
export interface SpecOperation {
  /** Its `operationId`, when it has one. */
  id?: string;
  /** Lower case, as the Path Item keys it: `post`, `put`. */
  method: string;
  /** The path template, `/api/v1/external/users/{id}`. */
  path: string;
  /** The Operation Object. */
  operation: JsonObject;
  /** The Path Item it belongs to (`$ref` followed). */
  item: JsonObject;
}

/** Every operation of `document`, in the order of its paths and of {@link httpMethods}. */
export function operationsOf(document: unknown): SpecOperation[] {
  const paths = isObject(document) && isObject(document.paths) ? document.paths : {};
  return Object.entries(paths).flatMap(([path, raw]) => {
    const item = dereference(document, raw);
    if (!isObject(item)) return [];
    return httpMethods.flatMap((method) => {
      const operation = item[method];
      if (!isObject(operation)) return [];
      const id = typeof operation.operationId === 'string' ? operation.operationId : undefined;
      return [{ ...(id === undefined ? {} : { id }), method, path, operation, item }];
    });
  });
}

/** The operation whose `operationId` is `operationId`; throws when the document has none. */
export function operationById(document: unknown, operationId: string): SpecOperation {
  const found = operationsOf(document).find((operation) => operation.id === operationId);
  if (!found) throw new Error(`The spec has no operation ${operationId}.`);
  return found;
}

/**
 * The parameters of an operation, its Path Item's first then its own (OAS 3.1: an operation's
 * parameter overrides the Path Item's of the same name and location), each `$ref` followed.
 */
export function parametersOf(document: unknown, { item, operation }: SpecOperation): JsonObject[] {
  const listed = [item.parameters, operation.parameters].flatMap((list) =>
    Array.isArray(list) ? list.map((parameter) => dereference(document, parameter)) : [],
  );
  const parameters = listed.filter(isObject);
  return parameters.filter(
    (parameter, index) =>
      !parameters
        .slice(index + 1)
        .some((later) => later.name === parameter.name && later.in === parameter.in),
  );
}
