import { openapiDocument } from '@institution-api/types';
import { describe, expect, it } from 'vitest';
import { propertiesOf, schemaTypes } from '../../src/spec/index.js';

const property = (name: string) =>
  Object.fromEntries(propertiesOf(openapiDocument, { $ref: '#/components/schemas/UserInput' }))[
    name
  ];

describe('schemaTypes', () => {
  it.each([
    ['email', ['string']],
    ['otherName', ['string', 'null']],
    ['monthlyIncome', ['number']],
    ['isGhanaCardVerified', ['boolean']],
    ['kyc', ['object']],
    ['accountType', ['string', 'null']],
    ['network', ['string', 'null']],
  ])("UserInput's %s admits %j", (name, types) => {
    expect([...schemaTypes(openapiDocument, property(name))].sort()).toEqual([...types].sort());
  });

  it('reads const, enum, properties and both kinds of branches', () => {
    expect([...schemaTypes({}, { const: null })]).toEqual(['null']);
    expect([...schemaTypes({}, { enum: [1, 'a', true] })]).toEqual(['number', 'string', 'boolean']);
    expect([...schemaTypes({}, { properties: {} })]).toEqual(['object']);
    expect([
      ...schemaTypes({}, { oneOf: [{ type: 'array' }], anyOf: [{ type: ['integer', 'null'] }] }),
    ]).toEqual(['integer', 'null', 'array']);
    expect(schemaTypes({}, {}).size).toBe(0);
  });
});
