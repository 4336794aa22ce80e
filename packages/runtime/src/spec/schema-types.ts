/**
 * The JSON types a schema admits, read from its keywords: what a reader needs to know of a value
 * it has not seen (may it be null, a list, a number?).
 *
 * @module
 */
import { branchesOf, resolveSchema } from './walk.js';

/** A JSON type, as JSON Schema names them. */
export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'null' | 'object' | 'array';

/**
 * Every JSON type a value of `schema` may take: its `type`, the types of its `const` and `enum`
 * values, `object` when it lists `properties`, and those of each `anyOf`/`oneOf` branch, `$ref`s
 * followed. An empty set: the schema does not say (it admits anything).
 */
export function schemaTypes(document: unknown, schema: unknown): Set<JsonType> {
  const found = new Set<JsonType>();
  const collect = (at: Record<string, unknown>) => {
    for (const type of ([] as unknown[]).concat(at.type ?? [])) found.add(type as JsonType);
    if ('const' in at) found.add(jsonTypeOf(at.const));
    if (Array.isArray(at.enum)) for (const value of at.enum) found.add(jsonTypeOf(value));
    if (at.properties !== undefined) found.add('object');
    for (const keyword of ['anyOf', 'oneOf'] as const) {
      for (const branch of branchesOf(document, at, keyword)) collect(branch);
    }
  };
  collect(resolveSchema(document, schema));
  return found;
}

/** The JSON type of a value. */
export function jsonTypeOf(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'string') return 'string';
  return 'object';
}
