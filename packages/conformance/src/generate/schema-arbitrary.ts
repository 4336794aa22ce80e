import fc from 'fast-check';
import type { JsonSchema } from '../spec/json-schema.js';
import { type Alternative, alternatives, alternativesOfAll } from './schema-alternatives.js';
import { stringFormat } from './string-formats.js';
import { UnsupportedSchemaError } from './unsupported-schema.js';

/** What the converter needs beyond the schema. */
export interface ArbitraryOptions {
  /** The document the schema's `$ref`s point into. */
  document: unknown;
  /** One unit of free text (a grapheme, a character), for strings with no format or pattern. */
  textUnit: fc.Arbitrary<string>;
}

/** Length in code points, as JSON Schema counts `minLength`/`maxLength` (2020-12 §6.3). */
export const codePoints = (value: string) => [...value].length;

/**
 * A fast-check arbitrary of values valid against `schema`, built keyword by keyword, so failures
 * shrink along the schema's own structure. Covers the keywords the contract uses (`$ref`,
 * `oneOf`/`anyOf`/`allOf`, `const`, `enum`, type arrays with `null`, `pattern` through
 * `fc.stringMatching`, formats, lengths, numeric bounds, `additionalProperties: false`, arrays) and
 * throws {@link UnsupportedSchemaError} on any other. Values are close to valid by construction; a
 * `oneOf` whose branches overlap can still produce one that matches two branches, so callers
 * confirm every value with Ajv.
 */
export function schemaArbitrary(
  schema: JsonSchema,
  options: ArbitraryOptions,
  pointer = '#',
): fc.Arbitrary<unknown> {
  return ofAlternatives(alternatives(options.document, schema, pointer), options, pointer);
}

/** The arbitrary of one alternative (a branch of the schema multiplied out). */
export function alternativeArbitrary(
  alternative: Alternative,
  options: ArbitraryOptions,
): fc.Arbitrary<unknown> {
  const { pointer } = alternative;
  if (alternative.const) return fc.constant(alternative.const.value);
  if (alternative.enum) return fc.constantFrom(...alternative.enum);
  if (!alternative.types) throw new UnsupportedSchemaError(pointer, 'no type, const or enum');
  const arbitraries = alternative.types.map((type) => typed(type, alternative, options));
  return arbitraries.length === 1
    ? (arbitraries[0] as fc.Arbitrary<unknown>)
    : fc.oneof(...arbitraries);
}

function ofAlternatives(found: Alternative[], options: ArbitraryOptions, pointer: string) {
  if (found.length === 0) throw new UnsupportedSchemaError(pointer, 'no value can satisfy it');
  const arbitraries = found.map((alternative) => alternativeArbitrary(alternative, options));
  return arbitraries.length === 1
    ? (arbitraries[0] as fc.Arbitrary<unknown>)
    : fc.oneof(...arbitraries);
}

/** The arbitrary of a property seen by several schemas at once (all of them apply). */
export function propertyArbitrary(
  schemas: JsonSchema[],
  options: ArbitraryOptions,
  pointer: string,
) {
  return ofAlternatives(alternativesOfAll(options.document, schemas, pointer), options, pointer);
}

function typed(
  type: string,
  alternative: Alternative,
  options: ArbitraryOptions,
): fc.Arbitrary<unknown> {
  const { pointer } = alternative;
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return integer(alternative);
    case 'number':
      return number(alternative);
    case 'string':
      return string(alternative, options);
    case 'array': {
      const items =
        alternative.items.length > 0
          ? propertyArbitrary(alternative.items, options, `${pointer}/items`)
          : fc.constant(null);
      return fc.array(items, {
        minLength: alternative.minItems ?? 0,
        maxLength: alternative.maxItems ?? Math.max(alternative.minItems ?? 0, 5),
      });
    }
    case 'object': {
      const missing = alternative.required.filter((name) => !(name in alternative.properties));
      if (missing.length > 0) {
        throw new UnsupportedSchemaError(
          pointer,
          `required ${missing.join(', ')} without a schema`,
        );
      }
      const model = Object.fromEntries(
        Object.entries(alternative.properties).map(([name, schemas]) => [
          name,
          propertyArbitrary(schemas, options, `${pointer}/properties/${name}`),
        ]),
      );
      return fc.record(model, { requiredKeys: alternative.required });
    }
    default:
      throw new UnsupportedSchemaError(pointer, `unknown type "${type}"`);
  }
}

function integer({ minimum, maximum, format }: Alternative) {
  const limit = format === 'int32' ? 2 ** 31 - 1 : Number.MAX_SAFE_INTEGER;
  const min = minimum ? Math.ceil(minimum.value + (minimum.exclusive ? 0.5 : 0)) : -limit;
  const max = maximum ? Math.floor(maximum.value - (maximum.exclusive ? 0.5 : 0)) : limit;
  return fc.integer({ min: Math.max(min, -limit - 1), max: Math.min(max, limit) });
}

function number({ minimum, maximum, format, pointer }: Alternative) {
  if (format !== undefined && !['double', 'float'].includes(format)) {
    throw new UnsupportedSchemaError(pointer, `unknown number format "${format}"`);
  }
  // JSON has no NaN or Infinity; every number format of OpenAPI is finite.
  return fc.double({
    noNaN: true,
    noDefaultInfinity: true,
    ...(minimum ? { min: minimum.value, minExcluded: minimum.exclusive } : {}),
    ...(maximum ? { max: maximum.value, maxExcluded: maximum.exclusive } : {}),
  });
}

function string(alternative: Alternative, options: ArbitraryOptions): fc.Arbitrary<string> {
  const { format, patterns, pointer } = alternative;
  const minLength = alternative.minLength ?? 0;
  const maxLength = alternative.maxLength;
  let base: fc.Arbitrary<string>;
  if (format !== undefined) {
    const known = stringFormat(format);
    if (!known) throw new UnsupportedSchemaError(pointer, `unknown string format "${format}"`);
    base = known.arbitrary;
  } else if (patterns.length > 0) {
    base = fc.stringMatching(new RegExp(patterns[0] as string, 'u'));
  } else {
    base = fc.string({
      unit: options.textUnit,
      minLength,
      ...(maxLength === undefined ? {} : { maxLength }),
    });
  }
  const rest = patterns
    .slice(format === undefined ? 1 : 0)
    .map((pattern) => new RegExp(pattern, 'u'));
  return base.filter((value) => {
    const length = codePoints(value);
    return (
      length >= minLength &&
      (maxLength === undefined || length <= maxLength) &&
      rest.every((pattern) => pattern.test(value))
    );
  });
}
