import { resolveLocalRef } from '@institution-api/runtime/spec';
import { isObject, type JsonSchema } from '../spec/json-schema.js';
import { UnsupportedSchemaError } from './unsupported-schema.js';

/** Keywords that only annotate (JSON Schema 2020-12 meta-data and OpenAPI's own), never constrain. */
const ANNOTATIONS = new Set([
  'title',
  'description',
  'examples',
  'example',
  '$comment',
  'deprecated',
  'default',
  'externalDocs',
]);

/** Every constraining keyword the generator honours; any other one fails loudly. */
const KEYWORDS = new Set([
  '$ref',
  'type',
  'const',
  'enum',
  'oneOf',
  'anyOf',
  'allOf',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
]);

/**
 * One alternative of a schema: what a value must satisfy once `$ref`, `allOf`, `oneOf` and
 * `anyOf` are multiplied out, keyword by keyword. Properties keep their schemas unflattened
 * (a list, all of which apply), so recursion stays lazy.
 */
export interface Alternative {
  /** Where it comes from, for error messages (`#/components/schemas/UserInput/oneOf/1`). */
  pointer: string;
  /** JSON types allowed; undefined when the schema does not say (then `const`/`enum` must). */
  types?: string[];
  const?: { value: unknown };
  enum?: unknown[];
  properties: Record<string, JsonSchema[]>;
  required: string[];
  /** `additionalProperties: false`. */
  closed: boolean;
  items: JsonSchema[];
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  patterns: string[];
  format?: string;
  minimum?: { value: number; exclusive: boolean };
  maximum?: { value: number; exclusive: boolean };
  /**
   * For an alternative born of a `oneOf`/`anyOf` branch: the schema beside the branch, the
   * branch alone and every branch of the same keyword, so a mutation can break the branch's own
   * rule (a conditional rule) and know which fields the rule is about.
   */
  branch?: { base: Alternative; own: Alternative; siblings: Alternative[] };
}

/**
 * Multiplies a schema out into its alternatives (a value is valid when it satisfies one of them,
 * and for `oneOf` only one: the caller confirms every value with Ajv). Unsatisfiable combinations
 * (`const: MOMO` beside `type: 'null'`) are dropped; unknown keywords throw.
 */
export function alternatives(
  document: unknown,
  schema: JsonSchema,
  pointer: string,
): Alternative[] {
  const cache = cachesOf(document).one;
  const cached = cache.get(schema);
  if (cached) return cached;
  const result = multiply(document, schema, pointer);
  cache.set(schema, result);
  return result;
}

/**
 * Schemas are read-only once loaded, so their alternatives are computed once per document (the
 * same `$ref` object means another schema in another document).
 */
const caches = new WeakMap<
  object,
  { one: WeakMap<JsonSchema, Alternative[]>; all: WeakMap<JsonSchema[], Alternative[]> }
>();

function cachesOf(document: unknown) {
  const key = (typeof document === 'object' && document !== null ? document : caches) as object;
  let found = caches.get(key);
  if (!found) {
    found = { one: new WeakMap(), all: new WeakMap() };
    caches.set(key, found);
  }
  return found;
}

function multiply(document: unknown, schema: JsonSchema, pointer: string): Alternative[] {
  for (const key of Object.keys(schema)) {
    if (key.startsWith('x-') || ANNOTATIONS.has(key) || KEYWORDS.has(key)) continue;
    throw new UnsupportedSchemaError(pointer, `unknown keyword "${key}"`);
  }
  let result = [own(schema, pointer)];
  if (typeof schema.$ref === 'string') {
    const target = resolveLocalRef(document, schema.$ref);
    if (!isObject(target))
      throw new UnsupportedSchemaError(pointer, `${schema.$ref} is not a schema`);
    result = product(result, alternatives(document, target, schema.$ref));
  }
  for (const [index, member] of list(schema.allOf, pointer, 'allOf').entries()) {
    result = product(result, alternatives(document, member, `${pointer}/allOf/${index}`));
  }
  for (const keyword of ['oneOf', 'anyOf'] as const) {
    const branches = list(schema[keyword], pointer, keyword);
    if (branches.length === 0) continue;
    const next: Alternative[] = [];
    const siblings = branches.flatMap((branch, index) =>
      alternatives(document, branch, `${pointer}/${keyword}/${index}`),
    );
    for (const base of result) {
      for (const own of siblings) {
        const merged = merge(base, own);
        if (merged) next.push({ ...merged, branch: { base, own, siblings } });
      }
    }
    result = next;
  }
  return result;
}

/** The alternatives of a list of schemas that all apply (a property seen by several branches). */
export function alternativesOfAll(document: unknown, schemas: JsonSchema[], pointer: string) {
  const cacheOfAll = cachesOf(document).all;
  const cached = cacheOfAll.get(schemas);
  if (cached) return cached;
  let result: Alternative[] = [own({}, pointer)];
  for (const schema of schemas) result = product(result, alternatives(document, schema, pointer));
  cacheOfAll.set(schemas, result);
  return result;
}

function list(value: unknown, pointer: string, keyword: string): JsonSchema[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every(isObject)) {
    throw new UnsupportedSchemaError(pointer, `${keyword} is not a list of schemas`);
  }
  return value;
}

/** The keywords of `schema` itself, without its `$ref` and combinators. */
function own(schema: JsonSchema, pointer: string): Alternative {
  const number = (key: string) => {
    const value = schema[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'number')
      throw new UnsupportedSchemaError(pointer, `${key} is not a number`);
    return value;
  };
  const alternative: Alternative = {
    pointer,
    properties: {},
    required: Array.isArray(schema.required) ? schema.required.map(String) : [],
    closed: schema.additionalProperties === false,
    items: isObject(schema.items) ? [schema.items] : [],
    patterns: typeof schema.pattern === 'string' ? [schema.pattern] : [],
  };
  if (schema.type !== undefined) {
    alternative.types = (Array.isArray(schema.type) ? schema.type : [schema.type]).map(String);
  }
  if ('const' in schema) alternative.const = { value: schema.const };
  if (Array.isArray(schema.enum)) alternative.enum = schema.enum;
  if (isObject(schema.properties)) {
    for (const [name, property] of Object.entries(schema.properties)) {
      if (!isObject(property))
        throw new UnsupportedSchemaError(pointer, `property ${name} is not a schema`);
      alternative.properties[name] = [property];
    }
  }
  if (typeof schema.format === 'string') alternative.format = schema.format;
  const bounds = {
    minItems: number('minItems'),
    maxItems: number('maxItems'),
    minLength: number('minLength'),
    maxLength: number('maxLength'),
  };
  for (const [key, value] of Object.entries(bounds)) {
    if (value !== undefined) alternative[key as keyof typeof bounds] = value;
  }
  const minimum = number('minimum');
  const exclusiveMinimum = number('exclusiveMinimum');
  const maximum = number('maximum');
  const exclusiveMaximum = number('exclusiveMaximum');
  if (minimum !== undefined) alternative.minimum = { value: minimum, exclusive: false };
  if (exclusiveMinimum !== undefined && (minimum === undefined || exclusiveMinimum >= minimum)) {
    alternative.minimum = { value: exclusiveMinimum, exclusive: true };
  }
  if (maximum !== undefined) alternative.maximum = { value: maximum, exclusive: false };
  if (exclusiveMaximum !== undefined && (maximum === undefined || exclusiveMaximum <= maximum)) {
    alternative.maximum = { value: exclusiveMaximum, exclusive: true };
  }
  return alternative;
}

function product(left: Alternative[], right: Alternative[]): Alternative[] {
  const result: Alternative[] = [];
  for (const a of left) {
    for (const b of right) {
      const merged = merge(a, b);
      if (merged) result.push(merged);
    }
  }
  return result;
}

/** The JSON type of a value, `integer` for whole numbers (JSON Schema 2020-12 §6.1.1). */
export function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** Whether a value of JSON type `type` is allowed by `types` (`integer` is a `number`). */
export function typeAllowed(types: string[] | undefined, type: string): boolean {
  return (
    types === undefined || types.includes(type) || (type === 'integer' && types.includes('number'))
  );
}

function intersectTypes(a?: string[], b?: string[]): string[] | undefined {
  if (!a) return b;
  if (!b) return a;
  const result = new Set<string>();
  for (const type of a) {
    if (b.includes(type)) result.add(type);
    if (type === 'integer' && b.includes('number')) result.add('integer');
    if (type === 'number' && b.includes('integer')) result.add('integer');
  }
  return [...result];
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Both alternatives at once, or undefined when no value can satisfy both. */
function merge(a: Alternative, b: Alternative): Alternative | undefined {
  if (a.format && b.format && a.format !== b.format) {
    throw new UnsupportedSchemaError(
      b.pointer,
      `two formats (${a.format}, ${b.format}) on one value`,
    );
  }
  const properties: Alternative['properties'] = { ...a.properties };
  for (const [name, schemas] of Object.entries(b.properties)) {
    properties[name] = [...(properties[name] ?? []), ...schemas];
  }
  const merged: Alternative = {
    pointer: b.pointer,
    properties,
    required: [...new Set([...a.required, ...b.required])],
    closed: a.closed || b.closed,
    items: [...a.items, ...b.items],
    patterns: [...a.patterns, ...b.patterns],
  };
  const branch = b.branch ?? a.branch;
  if (branch) merged.branch = branch;
  const types = intersectTypes(a.types, b.types);
  if (types) merged.types = types;
  const format = a.format ?? b.format;
  if (format) merged.format = format;
  if (a.const && b.const && !same(a.const.value, b.const.value)) return undefined;
  const constant = a.const ?? b.const;
  if (constant) merged.const = constant;
  if (a.enum || b.enum) {
    merged.enum = (a.enum ?? b.enum ?? []).filter(
      (value) => !b.enum || b.enum.some((other) => same(value, other)),
    );
  }
  const larger = (x?: number, y?: number) =>
    x === undefined ? y : y === undefined ? x : Math.max(x, y);
  const smaller = (x?: number, y?: number) =>
    x === undefined ? y : y === undefined ? x : Math.min(x, y);
  const bounds = {
    minItems: larger(a.minItems, b.minItems),
    maxItems: smaller(a.maxItems, b.maxItems),
    minLength: larger(a.minLength, b.minLength),
    maxLength: smaller(a.maxLength, b.maxLength),
  };
  for (const [key, value] of Object.entries(bounds)) {
    if (value !== undefined) merged[key as keyof typeof bounds] = value;
  }
  const minimum = [a.minimum, b.minimum]
    .filter((bound) => bound !== undefined)
    .sort((x, y) => y.value - x.value || Number(y.exclusive) - Number(x.exclusive))[0];
  const maximum = [a.maximum, b.maximum]
    .filter((bound) => bound !== undefined)
    .sort((x, y) => x.value - y.value || Number(y.exclusive) - Number(x.exclusive))[0];
  if (minimum) merged.minimum = minimum;
  if (maximum) merged.maximum = maximum;
  return satisfiable(merged) ? merged : undefined;
}

function satisfiable(alternative: Alternative): boolean {
  const { types, minLength, maxLength, minItems, maxItems, minimum, maximum } = alternative;
  if (types && types.length === 0) return false;
  if (alternative.enum) {
    alternative.enum = alternative.enum.filter((value) => typeAllowed(types, jsonType(value)));
    if (alternative.enum.length === 0) return false;
  }
  if (alternative.const) {
    const { value } = alternative.const;
    if (!typeAllowed(types, jsonType(value))) return false;
    if (alternative.enum && !alternative.enum.some((other) => same(value, other))) return false;
  }
  if (minLength !== undefined && maxLength !== undefined && minLength > maxLength) return false;
  if (minItems !== undefined && maxItems !== undefined && minItems > maxItems) return false;
  if (
    minimum &&
    maximum &&
    (minimum.value > maximum.value ||
      (minimum.value === maximum.value && (minimum.exclusive || maximum.exclusive)))
  ) {
    return false;
  }
  return true;
}
