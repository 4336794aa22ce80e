import { isObject } from './json-schema.js';

/**
 * The value a local `$ref` (`#/components/schemas/UserInput`) points to in `document`, by JSON
 * Pointer (RFC 6901, OAS 3.1 section 4.8.23 "Reference Object"). A reference to another file
 * fails loudly: the suite reads a bundled document (`redocly bundle` makes one).
 */
export function resolveLocalRef(document: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) {
    throw new Error(
      `The spec refers to another document (${ref}); give a bundled spec (redocly bundle).`,
    );
  }
  let value: unknown = document;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    if (!isObject(value) && !Array.isArray(value)) value = undefined;
    value = (value as Record<string, unknown> | undefined)?.[key];
    if (value === undefined) throw new Error(`The spec's reference ${ref} points to nothing.`);
  }
  return value;
}

/**
 * An OpenAPI object that may be a Reference Object, followed until it is not (responses,
 * parameters, headers, request bodies). Schemas keep their refs: Ajv and the generator resolve
 * those themselves.
 */
export function dereference<T>(document: unknown, value: unknown, seen = new Set<string>()): T {
  if (isObject(value) && typeof value.$ref === 'string') {
    if (seen.has(value.$ref)) throw new Error(`The spec's reference ${value.$ref} is circular.`);
    seen.add(value.$ref);
    return dereference<T>(document, resolveLocalRef(document, value.$ref), seen);
  }
  return value as T;
}
