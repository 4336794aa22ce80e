/**
 * The strict profile of a tool's input schema (`mcp --strict-schemas`), for the clients whose
 * model API takes only the strict subset of JSON Schema (OpenAI's Structured Outputs and strict
 * function calling; Gemini's function declarations alike): every object lists all its
 * properties in `required` and has `additionalProperties: false`; a property the spec lets a
 * client leave out is required and admits `null`, which means "left out"; a value that may be
 * null is an `anyOf` of its type and `{ "type": "null" }` (no type arrays); and only the
 * keywords that subset has are kept (`type`, `properties`, `required`, `additionalProperties`,
 * `items`, `enum`, `const`, `anyOf`, `description`). What the others said (lengths, formats,
 * patterns, bounds, defaults, examples) is written into the description instead, and the
 * server checks it all the same, against the spec, before anything is signed.
 *
 * Derived from the spec-derived schema alone; a keyword it cannot express (`allOf`, `not`,
 * `if`…) throws, so a spec that grows one fails at start and in the tests, never silently.
 *
 * @module
 */

type Schema = Record<string, unknown>;

/** The strict schema, and how to read arguments sent against it as the spec's. */
export interface StrictProfile {
  schema: Schema;
  /**
   * The arguments with each `null` the profile added removed (the property left out), so that
   * they read as the spec's; a `null` the spec itself allows stays.
   */
  asSpecArguments(value: unknown): unknown;
}

/** The keywords of the strict subset, kept as they are. */
const kept = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  'description',
]);

/** Keywords the subset lacks, each said in words in the description (the server checks them). */
const inWords: Record<string, (value: unknown) => string | undefined> = {
  minLength: (n) => (n === 1 ? 'not empty' : `at least ${n} characters`),
  maxLength: (n) => `at most ${n} characters`,
  pattern: (pattern) => `matches the regular expression ${pattern}`,
  format: (format) => `format ${format}`,
  minimum: (n) => `at least ${n}`,
  maximum: (n) => `at most ${n}`,
  exclusiveMinimum: (n) => `more than ${n}`,
  exclusiveMaximum: (n) => `less than ${n}`,
  multipleOf: (n) => `a multiple of ${n}`,
  minItems: (n) => `at least ${n} items`,
  maxItems: (n) => `at most ${n} items`,
  uniqueItems: (unique) => (unique === true ? 'items unique' : undefined),
  default: (value) => `default ${JSON.stringify(value)}`,
  examples: (values) => `e.g. ${(values as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
  // Annotations with nothing to say to a model beyond the description.
  title: () => undefined,
  example: () => undefined,
  deprecated: () => undefined,
  readOnly: () => undefined,
  writeOnly: () => undefined,
  $comment: () => undefined,
};

/** How one schema's value is read back: which nulls mean "left out", and inside what. */
interface Reader {
  /** Properties whose `null` the profile added. */
  addedNull: Set<string>;
  /** The readers of the properties that are objects (or may be). */
  properties: Map<string, Reader>;
}

/** The strict profile of `schema` (a tool's input schema, self-contained: no `$ref`). */
export function strictProfile(schema: Schema): StrictProfile {
  const { schema: strict, reader } = convert(schema, '');
  return {
    schema: strict,
    asSpecArguments: (value) => (reader ? read(value, reader) : value),
  };
}

function convert(schema: Schema, at: string): { schema: Schema; reader?: Reader } {
  const out: Schema = {};
  const rules: string[] = [];
  for (const [keyword, value] of Object.entries(schema)) {
    if (kept.has(keyword) || keyword === 'oneOf') continue;
    if (keyword.startsWith('x-')) continue;
    const say = inWords[keyword];
    if (say === undefined) {
      throw new Error(`The strict profile cannot express ${keyword} (at ${at || '/'}).`);
    }
    const words = say(value);
    if (words !== undefined) rules.push(words);
  }
  const description = [schema.description, rules.length > 0 ? `Rules: ${rules.join('; ')}.` : '']
    .filter(Boolean)
    .join(' ');
  if (description) out.description = description;

  // `oneOf` becomes `anyOf` (the server checks "exactly one" against the spec).
  const alternatives = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (alternatives !== undefined) {
    let reader: Reader | undefined;
    out.anyOf = alternatives.map((branch, index) => {
      const converted = convert(branch, `${at}/anyOf/${index}`);
      reader ??= converted.reader;
      return converted.schema;
    });
    return { schema: out, reader };
  }
  const types = ([] as unknown[]).concat(schema.type ?? []);
  if (types.length > 1) {
    // A type array becomes one branch per type; its rules are in the description above.
    const structure = Object.fromEntries(
      Object.entries(schema).filter(([keyword]) => kept.has(keyword) && keyword !== 'description'),
    );
    const branches = types.map((type) =>
      type === 'null' ? { schema: { type: 'null' } } : convert({ ...structure, type }, at),
    );
    out.anyOf = branches.map((branch) => branch.schema);
    return { schema: out, reader: branches.find((branch) => branch.reader)?.reader };
  }
  if (schema.type !== undefined) out.type = schema.type;
  for (const keyword of ['enum', 'const'] as const) {
    if (keyword in schema) out[keyword] = schema[keyword];
  }
  if (schema.items !== undefined) {
    out.items = convert(schema.items as Schema, `${at}/items`).schema;
  }
  if (schema.type === 'object' || schema.properties !== undefined) {
    return convertObject(schema, out, at);
  }
  return { schema: out };
}

/** An object: every property required, `null` added where the spec lets it be left out. */
function convertObject(
  schema: Schema,
  out: Schema,
  at: string,
): { schema: Schema; reader: Reader } {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required ?? []) as string[]);
  const reader: Reader = { addedNull: new Set(), properties: new Map() };
  const strict: Record<string, Schema> = {};
  for (const [name, property] of Object.entries(properties)) {
    const converted = convert(property, `${at}/properties/${name}`);
    if (converted.reader) reader.properties.set(name, converted.reader);
    if (required.has(name) || admitsNull(property)) {
      strict[name] = converted.schema;
    } else {
      const { description, ...rest } = converted.schema;
      strict[name] = {
        description: [description, 'Null when left out.'].filter(Boolean).join(' '),
        anyOf: [rest, { type: 'null' }],
      };
      reader.addedNull.add(name);
    }
  }
  return {
    schema: {
      ...out,
      type: 'object',
      properties: strict,
      required: Object.keys(strict),
      additionalProperties: false,
    },
    reader,
  };
}

/** Whether the spec's schema already admits `null` (a type array or an `anyOf` branch with it). */
function admitsNull(schema: Schema): boolean {
  if (([] as unknown[]).concat(schema.type ?? []).includes('null')) return true;
  const alternatives = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  return alternatives?.some(admitsNull) ?? false;
}

function read(value: unknown, reader: Reader): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(value)) {
    if (property === null && reader.addedNull.has(name)) continue;
    const inner = reader.properties.get(name);
    out[name] = inner ? read(property, inner) : property;
  }
  return out;
}
