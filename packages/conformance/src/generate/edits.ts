import fc from 'fast-check';
import { isObject, type JsonSchema } from '../spec/json-schema.js';
import { alternativeOf } from './alternative-match.js';
import { type Alternative, alternativesOfAll, jsonType } from './schema-alternatives.js';
import { type ArbitraryOptions, alternativeArbitrary, codePoints } from './schema-arbitrary.js';
import { stringFormat } from './string-formats.js';

/**
 * One labelled change of a valid value: a mutation that breaks one keyword (the value must then
 * be refused), or a boundary case (a length at its bound, a null, a first or last day) that keeps
 * it valid. The caller confirms each edited value with Ajv before sending it.
 */
export interface Edit {
  /** The keyword broken or probed: `required`, `type`, `pattern`, `format`, `maxLength`, … */
  keyword: string;
  /** JSON Pointer of the edited value (`/kyc/validFrom`). */
  pointer: string;
  /** The property an error answer must name (the last name on the pointer). */
  field: string;
  /**
   * Other properties an error answer may name instead: those of the conditional rule a `oneOf`
   * mutation breaks (a MOMO `network` given without `accountType` may be answered "accountType
   * is required").
   */
  ruleFields?: string[];
  /** Whether the edited value stays valid (a boundary at its bound) or must be refused. */
  valid: boolean;
  /** What the edit does, in words. */
  label: string;
  /** The edited copy of a value; the original is left alone. */
  apply(value: unknown): unknown;
}

/** The kinds of invalid edits the editor knows (those a schema offers are drawn equally often). */
export const MUTATION_KEYWORDS = [
  'required',
  'type',
  'pattern',
  'format',
  'maxLength',
  'minLength',
  'minimum',
  'maximum',
  'enum',
  'additionalProperties',
  'oneOf',
] as const;

/** A character outside the Basic Multilingual Plane: two UTF-16 units, one code point. */
const WIDE = '\u{1D11E}';
const EXTRA_PROPERTY = 'conformanceUnexpected';

/**
 * Every edit of `value` (valid against `schemas`) that the schema suggests, walking the branch of
 * each `oneOf`/`anyOf` the value took. Absent optional properties are probed too, set to a value
 * of their own schema first.
 */
export function editsOf(
  value: unknown,
  schemas: JsonSchema[],
  options: ArbitraryOptions,
  pointer = '',
): Edit[] {
  const found = alternativesOfAll(options.document, schemas, `#${pointer}`);
  const alternative = alternativeOf(options.document, found, value);
  if (!alternative) return [];
  const edits = [...valueEdits(value, alternative, pointer)];
  if (isObject(value) && alternative.types?.includes('object') !== false) {
    edits.push(...objectEdits(value, alternative, options, pointer));
  }
  return edits;
}

function field(pointer: string) {
  return pointer.split('/').at(-1) || 'body';
}

function edit(
  keyword: string,
  pointer: string,
  valid: boolean,
  label: string,
  replacement: unknown,
): Edit {
  return {
    keyword,
    pointer,
    field: field(pointer),
    valid,
    label: `${pointer || 'the body'} ${label}`,
    apply: (value) => setAt(value, pointer, replacement),
  };
}

function valueEdits(value: unknown, alternative: Alternative, pointer: string): Edit[] {
  const edits: Edit[] = [];
  const types = alternative.types ?? [];
  const wrong = wrongTypeValue(types);
  if (wrong !== undefined)
    edits.push(edit('type', pointer, false, `of type ${jsonType(wrong)}`, wrong));
  if (types.includes('null') && value !== null)
    edits.push(edit('null', pointer, true, 'null', null));
  if (alternative.const || alternative.enum) {
    if (typeof value === 'string')
      edits.push(edit('enum', pointer, false, 'not one of the allowed values', `NOT_${value}_`));
  }
  if (typeof value === 'string') edits.push(...stringEdits(value, alternative, pointer));
  if (typeof value === 'number') edits.push(...numberEdits(alternative, pointer));
  return edits;
}

function wrongTypeValue(types: string[]): unknown {
  if (types.length === 0) return undefined;
  if (!types.includes('number') && !types.includes('integer')) return 12345;
  if (!types.includes('string')) return '12345';
  if (!types.includes('boolean')) return true;
  return undefined;
}

function stringEdits(value: string, alternative: Alternative, pointer: string): Edit[] {
  const edits: Edit[] = [];
  const { format, patterns, minLength, maxLength } = alternative;
  const known = format === undefined ? undefined : stringFormat(format);
  if (patterns.length > 0)
    edits.push(edit('pattern', pointer, false, `not matching ${patterns[0]}`, `#${value}`));
  for (const invalid of known?.invalid ?? []) {
    edits.push(edit('format', pointer, false, `not a ${format} ("${invalid}")`, invalid));
  }
  for (const edge of known?.edges ?? [])
    edits.push(edit('format', pointer, true, `at the edge ${edge}`, edge));
  // A value of exactly `length` code points: text made of a character outside the BMP (so a
  // server counting UTF-16 units sees twice as many), a formatted value padded, or a patterned one
  // lengthened past its bound (only ever invalid).
  const ofLength = (length: number): string | undefined => {
    if (known) return known.ofLength(length);
    if (patterns.length > 0) return undefined;
    return WIDE.repeat(length);
  };
  if (maxLength !== undefined) {
    const atBound = ofLength(maxLength);
    if (atBound !== undefined)
      edits.push(edit('maxLength', pointer, true, `at maxLength ${maxLength}`, atBound));
    const past =
      ofLength(maxLength + 1) ?? value + '0'.repeat(Math.max(1, maxLength + 1 - codePoints(value)));
    edits.push(edit('maxLength', pointer, false, `one past maxLength ${maxLength}`, past));
  }
  if (minLength !== undefined && minLength > 0) {
    const atBound = ofLength(minLength);
    if (atBound !== undefined)
      edits.push(edit('minLength', pointer, true, `at minLength ${minLength}`, atBound));
    edits.push(
      edit(
        'minLength',
        pointer,
        false,
        `one short of minLength ${minLength}`,
        [...value].slice(0, minLength - 1).join(''),
      ),
    );
  }
  return edits;
}

/** The representable number next to `bound`, outside it (`0` gives `-5e-324`). */
function beyond(bound: number, direction: -1 | 1, integer: boolean): number {
  if (integer) return bound + direction;
  const step = Math.max(Math.abs(bound) * Number.EPSILON, Number.MIN_VALUE);
  return bound + direction * step;
}

function numberEdits(alternative: Alternative, pointer: string): Edit[] {
  const edits: Edit[] = [];
  const integer =
    alternative.types?.includes('integer') === true && !alternative.types.includes('number');
  const { minimum, maximum } = alternative;
  if (minimum) {
    if (!minimum.exclusive)
      edits.push(edit('minimum', pointer, true, `at minimum ${minimum.value}`, minimum.value));
    const past = minimum.exclusive ? minimum.value : beyond(minimum.value, -1, integer);
    edits.push(
      edit('minimum', pointer, false, `just below minimum ${minimum.value} (${past})`, past),
    );
  }
  if (maximum) {
    if (!maximum.exclusive)
      edits.push(edit('maximum', pointer, true, `at maximum ${maximum.value}`, maximum.value));
    const past = maximum.exclusive ? maximum.value : beyond(maximum.value, 1, integer);
    edits.push(
      edit('maximum', pointer, false, `just above maximum ${maximum.value} (${past})`, past),
    );
  }
  return edits;
}

function objectEdits(
  value: Record<string, unknown>,
  alternative: Alternative,
  options: ArbitraryOptions,
  pointer: string,
): Edit[] {
  const edits: Edit[] = [];
  for (const name of alternative.required) {
    if (name in value) {
      edits.push({
        keyword: 'required',
        pointer: `${pointer}/${name}`,
        field: name,
        valid: false,
        label: `${pointer}/${name} missing (required)`,
        apply: (body) => deleteAt(body, `${pointer}/${name}`),
      });
    }
  }
  if (alternative.closed && !(EXTRA_PROPERTY in alternative.properties)) {
    edits.push(
      edit(
        'additionalProperties',
        `${pointer}/${EXTRA_PROPERTY}`,
        false,
        'added (unknown property)',
        'x',
      ),
    );
  }
  if (alternative.branch)
    edits.push(...conditionalEdits(value, alternative.branch, options, pointer));
  for (const [name, schemas] of Object.entries(alternative.properties)) {
    const child = name in value ? value[name] : sample(schemas, options, `${pointer}/${name}`);
    if (child === undefined) continue;
    edits.push(...editsOf(child, schemas, options, `${pointer}/${name}`));
  }
  return edits;
}

/**
 * Breaks the rule of the `oneOf`/`anyOf` branch the value took, keeping it valid against the
 * schema beside the branch: a property only the branch requires is removed, a property the branch
 * forbids (`type: 'null'`) gets a value, a property the branch pins (`const`) gets another value
 * the base allows. Ajv then confirms that no other branch accepts the result.
 */
function conditionalEdits(
  value: Record<string, unknown>,
  branch: NonNullable<Alternative['branch']>,
  options: ArbitraryOptions,
  pointer: string,
): Edit[] {
  const edits: Edit[] = [];
  const { base, own, siblings } = branch;
  const at = (name: string) => `${pointer}/${name}`;
  // The fields the rule is about: those some branch requires or pins beyond the base.
  const ruleFields = [
    ...new Set(
      siblings.flatMap((sibling) => [
        ...sibling.required.filter((name) => !base.required.includes(name)),
        ...Object.keys(sibling.properties),
      ]),
    ),
  ];
  for (const name of own.required) {
    if (name in value && !base.required.includes(name)) {
      edits.push({
        keyword: 'oneOf',
        pointer: at(name),
        field: name,
        valid: false,
        label: `${at(name)} missing (required by the branch ${own.pointer})`,
        apply: (body) => deleteAt(body, at(name)),
      });
    }
  }
  for (const [name, schemas] of Object.entries(own.properties)) {
    const baseSchemas = base.properties[name];
    if (!baseSchemas) continue;
    const ownFound = alternativesOfAll(options.document, schemas, at(name));
    const baseFound = alternativesOfAll(options.document, baseSchemas, at(name));
    if (
      ownFound.every(
        (alternative) => alternative.types?.length === 1 && alternative.types[0] === 'null',
      )
    ) {
      const filled = baseFound.find(
        (alternative) =>
          !alternative.types?.includes('null') || alternative.const || alternative.enum,
      );
      const replacement = filled ? sampleAlternative(filled, options) : undefined;
      if (replacement !== undefined && replacement !== null) {
        edits.push(
          edit(
            'oneOf',
            at(name),
            false,
            `given (the branch ${own.pointer} forbids it)`,
            replacement,
          ),
        );
      }
    }
    const pinned = ownFound.flatMap((alternative) =>
      alternative.const ? [alternative.const.value] : (alternative.enum ?? []),
    );
    if (pinned.length > 0) {
      const other = baseFound
        .flatMap((alternative) =>
          alternative.const ? [alternative.const.value] : (alternative.enum ?? []),
        )
        .find(
          (candidate) =>
            !pinned.some((value) => JSON.stringify(value) === JSON.stringify(candidate)),
        );
      if (other !== undefined) {
        edits.push(
          edit(
            'oneOf',
            at(name),
            false,
            `${JSON.stringify(other)} without the fields its branch requires`,
            other,
          ),
        );
      }
    }
  }
  return edits.map((found) => ({ ...found, ruleFields }));
}

function sample(schemas: JsonSchema[], options: ArbitraryOptions, pointer: string): unknown {
  const found = alternativesOfAll(options.document, schemas, pointer);
  const first =
    found.find(
      (alternative) => !(alternative.types?.length === 1 && alternative.types[0] === 'null'),
    ) ?? found[0];
  return first ? sampleAlternative(first, options) : undefined;
}

/** One value of an alternative, the same every time (a fixed seed), for probing absent properties. */
function sampleAlternative(alternative: Alternative, options: ArbitraryOptions): unknown {
  return fc.sample(alternativeArbitrary(alternative, options), { seed: 42, numRuns: 1 })[0];
}

/** A copy of `root` with the value at `pointer` replaced, creating missing parent objects. */
export function setAt(root: unknown, pointer: string, replacement: unknown): unknown {
  if (pointer === '') return replacement;
  const copy = structuredClone(root) as Record<string, unknown>;
  const names = pointer.slice(1).split('/');
  let parent = copy;
  for (const name of names.slice(0, -1)) {
    if (!isObject(parent[name])) parent[name] = {};
    parent = parent[name] as Record<string, unknown>;
  }
  parent[names.at(-1) as string] = replacement;
  return copy;
}

/** A copy of `root` without the value at `pointer`. */
export function deleteAt(root: unknown, pointer: string): unknown {
  const copy = structuredClone(root) as Record<string, unknown>;
  const names = pointer.slice(1).split('/');
  let parent: unknown = copy;
  for (const name of names.slice(0, -1)) parent = isObject(parent) ? parent[name] : undefined;
  if (isObject(parent)) delete parent[names.at(-1) as string];
  return copy;
}
