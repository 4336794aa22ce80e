import {
  type Alternative,
  alternativesOfAll,
  jsonType,
  typeAllowed,
} from './schema-alternatives.js';
import { codePoints } from './schema-arbitrary.js';

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Whether `value` follows `alternative` in structure (types, `const`, `enum`, lengths, patterns,
 * bounds, required and unknown properties; formats are left to Ajv). Used to tell which branch of
 * a `oneOf` a generated value took, so its mutations break that branch's rules.
 */
export function followsAlternative(
  document: unknown,
  alternative: Alternative,
  value: unknown,
): boolean {
  if (alternative.const && !same(alternative.const.value, value)) return false;
  if (alternative.enum && !alternative.enum.some((other) => same(other, value))) return false;
  if (!typeAllowed(alternative.types, jsonType(value))) return false;
  if (typeof value === 'string') {
    const length = codePoints(value);
    if (alternative.minLength !== undefined && length < alternative.minLength) return false;
    if (alternative.maxLength !== undefined && length > alternative.maxLength) return false;
    if (!alternative.patterns.every((pattern) => new RegExp(pattern, 'u').test(value)))
      return false;
  }
  if (typeof value === 'number') {
    const { minimum, maximum } = alternative;
    if (minimum && (value < minimum.value || (minimum.exclusive && value === minimum.value)))
      return false;
    if (maximum && (value > maximum.value || (maximum.exclusive && value === maximum.value)))
      return false;
  }
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const object = value as Record<string, unknown>;
    if (!alternative.required.every((name) => name in object)) return false;
    for (const [name, child] of Object.entries(object)) {
      const schemas = alternative.properties[name];
      if (!schemas) {
        if (alternative.closed) return false;
        continue;
      }
      const found = alternativesOfAll(
        document,
        schemas,
        `${alternative.pointer}/properties/${name}`,
      );
      if (!found.some((candidate) => followsAlternative(document, candidate, child))) return false;
    }
  }
  return true;
}

/** The alternative `value` follows, or the first one when it follows none. */
export function alternativeOf(
  document: unknown,
  found: Alternative[],
  value: unknown,
): Alternative | undefined {
  return found.find((alternative) => followsAlternative(document, alternative, value)) ?? found[0];
}
