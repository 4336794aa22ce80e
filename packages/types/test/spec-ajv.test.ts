import { describe, expect, it } from 'vitest';
import { openapiDocument } from '../src/index.js';
import { createSpecSchemas, isCalendarDate } from '../src/spec-ajv.js';

describe('createSpecSchemas', () => {
  const schemas = createSpecSchemas(openapiDocument);

  it('accepts every named request example of the spec as a UserInput', () => {
    const examples = openapiDocument.components.examples as Record<string, { value: unknown }>;
    const validate = schemas.validator('UserInput');
    for (const name of ['MomoAccountUser', 'BankAccountUser', 'UserWithoutAccount']) {
      const example = examples[name];
      expect(validate(example?.value), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
  });

  it('refuses a date the calendar does not have, as the server does', () => {
    const examples = openapiDocument.components.examples as Record<string, { value: object }>;
    const validate = schemas.validator('UserInput');
    const body = { ...examples.UserWithoutAccount?.value, dateOfBirth: '1990-02-30' };
    expect(validate(body)).toBe(false);
    expect(validate.errors?.map((e) => e.instancePath)).toContain('/dateOfBirth');
  });

  it('compiles a schema of the document that is not a component, resolving its refs', () => {
    const validate = schemas.compile({
      type: 'object',
      properties: { card: { $ref: '#/components/schemas/GhanaCardNumber' } },
    });
    expect(validate({ card: 'GHA-123456789-0' })).toBe(true);
    expect(validate({ card: 'GHA-12' })).toBe(false);
  });

  it('throws on a schema the spec does not have', () => {
    expect(() => schemas.validator('Nope')).toThrow(/no schema named Nope/);
  });
});

describe('isCalendarDate', () => {
  it.each([
    ['2024-02-29', true],
    ['2023-02-29', false],
    ['1900-02-29', false],
    ['2000-02-29', true],
    ['0000-01-01', false],
    ['0001-01-01', true],
    ['9999-12-31', true],
    ['1990-13-01', false],
    ['1990-1-01', false],
  ])('%s is %s', (value, expected) => {
    expect(isCalendarDate(value)).toBe(expected);
  });
});
