/**
 * Stepping through a JSON Schema (2020-12) of a bundled document: a schema with its `$ref`
 * followed, its properties, its required names, the branches of its `anyOf`/`oneOf`, and a walk
 * over every schema it is made of. Each step follows local references with {@link dereference}.
 *
 * @module
 */
import { isObject, type JsonObject, resolveLocalRef } from './local-ref.js';

/**
 * `schema` with its `$ref` followed (again while the target is one): the target's keywords, with
 * the referring schema's own beside the `$ref` over them (a property's `description`, its
 * `x-input-field`), as a reader of annotations wants them. Not the whole meaning of a `$ref` with
 * siblings (both apply, as with `allOf`): validate with Ajv (`@institution-api/runtime/spec-ajv`).
 */
export function resolveSchema(document: unknown, schema: unknown): JsonObject {
  let at: JsonObject = isObject(schema) ? schema : {};
  const seen = new Set<string>();
  while (typeof at.$ref === 'string') {
    const { $ref, ...siblings } = at;
    if (seen.has($ref)) throw new Error(`The spec's reference ${$ref} is circular.`);
    seen.add($ref);
    const target = resolveLocalRef(document, $ref);
    if (!isObject(target)) throw new Error(`The spec's reference ${$ref} is not a schema.`);
    at = { ...target, ...siblings };
  }
  return at;
}

/** The properties of an object schema (`$ref` followed), each resolved, in the schema's order. */
export function propertiesOf(document: unknown, schema: unknown): [string, JsonObject][] {
  const { properties } = resolveSchema(document, schema);
  return Object.entries(isObject(properties) ? properties : {}).map(([name, property]) => [
    name,
    resolveSchema(document, property),
  ]);
}

/** The names a schema (`$ref` followed) lists in `required`. */
export function requiredOf(document: unknown, schema: unknown): string[] {
  const { required } = resolveSchema(document, schema);
  return Array.isArray(required) ? required.map(String) : [];
}

/** The branches of a schema's `oneOf` or `anyOf` (`$ref` followed), each resolved, in order. */
export function branchesOf(
  document: unknown,
  schema: unknown,
  keyword: 'oneOf' | 'anyOf',
): JsonObject[] {
  const branches = resolveSchema(document, schema)[keyword];
  return Array.isArray(branches) ? branches.map((branch) => resolveSchema(document, branch)) : [];
}

/** Keywords whose value is one schema. */
const oneSchema = ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains'];
/** Keywords whose value is a list of schemas. */
const schemaLists = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
/** Keywords whose value maps names to schemas. */
const schemaMaps = ['properties', 'patternProperties', '$defs', 'dependentSchemas'];

/**
 * Calls `visit` with `schema` and with every schema it is made of (subschemas of every keyword,
 * and the targets of its local `$ref`s), depth first, each schema object once (so a recursive
 * schema ends). `pointer` says where each one is: the referring place for an inline subschema
 * (`…/properties/kyc`), the `$ref` itself for a target (`#/components/schemas/Kyc`).
 */
export function walkSchema(
  document: unknown,
  schema: unknown,
  visit: (schema: JsonObject, pointer: string) => void,
  pointer = '#',
): void {
  const seen = new Set<JsonObject>();
  const walk = (at: unknown, where: string) => {
    if (!isObject(at) || seen.has(at)) return;
    seen.add(at);
    visit(at, where);
    if (typeof at.$ref === 'string') walk(resolveLocalRef(document, at.$ref), at.$ref);
    for (const keyword of oneSchema) walk(at[keyword], `${where}/${keyword}`);
    for (const keyword of schemaLists) {
      const list = at[keyword];
      if (!Array.isArray(list)) continue;
      for (const [i, item] of list.entries()) walk(item, `${where}/${keyword}/${i}`);
    }
    for (const keyword of schemaMaps) {
      const map = at[keyword];
      if (!isObject(map)) continue;
      for (const [name, item] of Object.entries(map)) {
        walk(item, `${where}/${keyword}/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`);
      }
    }
  };
  walk(schema, pointer);
}
