/**
 * Local references of a bundled OpenAPI 3.1 document (`#/components/schemas/UserInput`): the one
 * resolver every reader of the spec uses. A reference to another file fails loudly: every reader
 * reads a bundled document (`redocly bundle` makes one).
 *
 * @module
 */

/** A JSON object as a document holds it (not an array, not null). */
export type JsonObject = Record<string, unknown>;

/** Whether `value` is a JSON object (not an array, not null). */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The segments of a local reference or JSON Pointer (`#/paths/~1users/post` → `paths`, `/users`,
 * `post`), unescaped (RFC 6901 §4) after its URI fragment is decoded (RFC 6901 §6).
 */
export function pointerSegments(pointer: string): string[] {
  const path = pointer.startsWith('#') ? decodeURIComponent(pointer.slice(1)) : pointer;
  if (path === '') return [];
  return path
    .split('/')
    .slice(1)
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** The local reference of `segments` (`paths`, `/users` → `#/paths/~1users`), each escaped. */
export function pointerOf(segments: readonly string[]): string {
  return `#${segments.map((segment) => `/${segment.replaceAll('~', '~0').replaceAll('/', '~1')}`).join('')}`;
}

/**
 * The value the local reference `ref` points to in `document`, by JSON Pointer (RFC 6901; OAS 3.1
 * "Reference Object"). Throws for a reference to another document and for one that points to
 * nothing.
 */
export function resolveLocalRef(document: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) {
    throw new Error(
      `The spec refers to another document (${ref}); give a bundled spec (redocly bundle).`,
    );
  }
  let value: unknown = document;
  for (const key of pointerSegments(ref)) {
    value = isObject(value) || Array.isArray(value) ? (value as JsonObject)[key] : undefined;
    if (value === undefined) throw new Error(`The spec's reference ${ref} points to nothing.`);
  }
  return value;
}

/**
 * `value` with its Reference Object followed until it is not one (a response, a parameter, a
 * header, a request body, an example, a path item, a schema that is a bare `$ref`). Any other
 * value is returned as it is. Throws for a circular chain, and as {@link resolveLocalRef} does.
 */
export function dereference<T = unknown>(document: unknown, value: unknown): T {
  const seen = new Set<string>();
  let current = value;
  while (isObject(current) && typeof current.$ref === 'string') {
    if (seen.has(current.$ref))
      throw new Error(`The spec's reference ${current.$ref} is circular.`);
    seen.add(current.$ref);
    current = resolveLocalRef(document, current.$ref);
  }
  return current as T;
}

/**
 * The name of the component a local reference names: `UserInput` for
 * `#/components/schemas/UserInput` when `kind` is `schemas`. Undefined for anything else (an
 * inline value, another kind, a deeper pointer).
 */
export function componentName(value: unknown, kind: string): string | undefined {
  const ref = isObject(value) ? value.$ref : value;
  if (typeof ref !== 'string') return undefined;
  const prefix = `#/components/${kind}/`;
  if (!ref.startsWith(prefix)) return undefined;
  const name = ref.slice(prefix.length);
  return name.includes('/')
    ? undefined
    : decodeURIComponent(name).replaceAll('~1', '/').replaceAll('~0', '~');
}
