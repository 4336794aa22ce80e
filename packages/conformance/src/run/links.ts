import { resolveLocalRef } from '@institution-api/runtime/spec';
import { type Contract, isJsonMediaType, type Operation } from '../spec/contract.js';
import { isObject } from '../spec/json-schema.js';

/**
 * Where a path parameter's values come from: the operation that creates the resource (a `POST` on
 * the parent path) and the property of its success answer that holds the value. Inferred from the
 * spec, as Schemathesis infers `id` → `{id}`: `PUT /users/{id}` takes the `id` of what
 * `POST /users` answers.
 */
export interface Link {
  parameter: string;
  producer: Operation;
  property: string;
}

/** The link of each path parameter of `operation` that has one. */
export function linksOf(contract: Contract, operation: Operation): Link[] {
  const links: Link[] = [];
  for (const { name } of operation.pathParameters) {
    const parent = operation.path.slice(0, operation.path.lastIndexOf(`/{${name}}`));
    if (parent === operation.path || parent === '') continue;
    const producer = contract.operations.find(
      (candidate) => candidate.method === 'POST' && candidate.path === parent,
    );
    if (!producer) continue;
    const property = [name, 'id'].find((candidate) =>
      successHasProperty(contract, producer, candidate),
    );
    if (property) links.push({ parameter: name, producer, property });
  }
  return links;
}

function successHasProperty(contract: Contract, operation: Operation, property: string): boolean {
  return operation.responses.some((response) => {
    if (!/^2/.test(response.status)) return false;
    return Object.entries(response.content).some(([mediaType, schema]) => {
      if (!isJsonMediaType(mediaType) || !schema) return false;
      const resolved =
        typeof schema.$ref === 'string' ? resolveLocalRef(contract.document, schema.$ref) : schema;
      return isObject(resolved) && isObject(resolved.properties) && property in resolved.properties;
    });
  });
}

/** The request target of `operation` with its path parameters filled in. */
export function targetOf(operation: Operation, parameters: Record<string, string>): string {
  return operation.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
    encodeURIComponent(parameters[name] ?? ''),
  );
}

/** A body's bytes as the suite sends them: `JSON.stringify`, UTF-8. */
export function bytesOf(body: unknown): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(JSON.stringify(body));
}
