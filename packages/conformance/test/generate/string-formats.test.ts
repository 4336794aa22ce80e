/**
 * What the generator knows of each string format: its values are valid as the spec's validators
 * (the server's) read them, of a given length when asked, its invalid strings are
 * refused, and its edges are valid.
 */
import { createSpecSchemas } from '@institution-api/runtime/spec-ajv';
import { openapiDocument } from '@institution-api/types';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringFormat } from '../../src/generate/string-formats.js';

/** Whether `value` is a valid `format`, as the spec's validators (the server's) read it. */
const schemas = createSpecSchemas(openapiDocument);
const validators = new Map<string, (value: unknown) => boolean>();
const valid = (format: string, value: string) => {
  let validate = validators.get(format);
  if (!validate) {
    validate = schemas.compile({ type: 'string', format });
    validators.set(format, validate);
  }
  return validate(value);
};
const codePoints = (value: string) => [...value].length;

describe.each(['email', 'uri', 'date', 'date-time', 'uuid'])('format %s', (format) => {
  const known = stringFormat(format);

  it('generates valid values only', () => {
    expect(known).toBeDefined();
    fc.assert(
      fc.property(known?.arbitrary ?? fc.constant(''), (value) => valid(format, value)),
      { numRuns: 200, seed: 7 },
    );
  });

  it('refuses each of its invalid strings, and accepts its edges', () => {
    for (const value of known?.invalid ?? []) expect(valid(format, value), value).toBe(false);
    for (const value of known?.edges ?? []) expect(valid(format, value), value).toBe(true);
  });

  it('makes a valid value of a given length when the format has one', () => {
    for (const length of [10, 24, 36, 40]) {
      const value = known?.ofLength(length);
      if (value === undefined) continue;
      expect(codePoints(value)).toBe(length);
      expect(valid(format, value), value).toBe(true);
    }
  });
});

describe('stringFormat', () => {
  it('knows nothing of a format the spec does not use', () => {
    expect(stringFormat('hostname')).toBeUndefined();
  });
});
