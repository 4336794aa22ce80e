/**
 * A schema of the spec as a self-contained JSON Schema 2020-12, for tools that take a schema
 * without its document: an MCP tool's input and output schemas, a page that lists a body's fields.
 * OpenAPI 3.1's Schema Object is JSON Schema 2020-12 plus a few keywords of OpenAPI's own (OAS 3.1
 * "Schema Object") and `x-` extensions; its `$ref`s point into the document.
 *
 * @module
 */
import { isObject, type JsonObject } from './local-ref.js';
import { resolveSchema } from './walk.js';

/** OpenAPI's own schema keywords, which JSON Schema does not know (OAS 3.1 "Schema Object"). */
const openApiKeywords = new Set(['discriminator', 'xml', 'externalDocs', 'example']);

/** Keywords whose value is one schema. */
const schemaKeywords = new Set([
  'items',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
]);

/** Keywords whose value is a list of schemas. */
const schemaListKeywords = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);

/** Keywords whose value maps names (which may be anything, `x-…` included) to schemas. */
const schemaMapKeywords = new Set(['properties', 'patternProperties', '$defs', 'dependentSchemas']);

/**
 * `schema` (a schema of `document`, or a `$ref` to one) with every local `$ref` replaced by what
 * it points to, the keywords beside a `$ref` over the target's ({@link resolveSchema}: a
 * property's `description` describes that use), and OpenAPI's own keywords and `x-` extensions
 * left out. Values (`const`, `enum`, `default`, `examples`) are copied as they are. Throws for a
 * reference to another document, one that points to nothing, and a schema that contains itself
 * (which no self-contained copy can hold).
 */
export function toJsonSchema(document: unknown, schema: unknown): JsonObject {
  return inline(document, schema, []) as JsonObject;
}

function inline(document: unknown, value: unknown, trail: readonly string[]): unknown {
  if (!isObject(value)) return value;
  let path = trail;
  if (typeof value.$ref === 'string') {
    if (path.includes(value.$ref)) throw new Error(`The schema ${value.$ref} contains itself.`);
    path = [...path, value.$ref];
  }
  const copy: JsonObject = {};
  for (const [keyword, child] of Object.entries(resolveSchema(document, value))) {
    if (openApiKeywords.has(keyword) || keyword.startsWith('x-')) continue;
    if (schemaKeywords.has(keyword)) copy[keyword] = inline(document, child, path);
    else if (schemaListKeywords.has(keyword) && Array.isArray(child)) {
      copy[keyword] = child.map((branch) => inline(document, branch, path));
    } else if (schemaMapKeywords.has(keyword) && isObject(child)) {
      copy[keyword] = Object.fromEntries(
        Object.entries(child).map(([name, sub]) => [name, inline(document, sub, path)]),
      );
    } else copy[keyword] = child;
  }
  return copy;
}
