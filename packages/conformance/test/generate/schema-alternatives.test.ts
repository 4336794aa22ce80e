/**
 * A schema multiplied out into its alternatives (schema-alternatives.ts), and a value matched to
 * the one it follows (alternative-match.ts): `$ref`s followed, `allOf` merged, `oneOf`/`anyOf`
 * branches kept apart with the schema beside them, impossible combinations dropped, and unknown
 * keywords refused before any request is sent.
 */
import { openapiDocument } from '@institution-api/types';
import { describe, expect, it } from 'vitest';
import { alternativeOf, followsAlternative } from '../../src/generate/alternative-match.js';
import { alternatives, jsonType, typeAllowed } from '../../src/generate/schema-alternatives.js';
import { UnsupportedSchemaError } from '../../src/generate/unsupported-schema.js';

const document = {
  components: {
    schemas: {
      Name: { type: 'string', minLength: 1, maxLength: 5 },
      Account: {
        type: 'object',
        required: ['kind'],
        properties: { kind: { type: 'string' }, number: { type: ['string', 'null'] } },
        additionalProperties: false,
        oneOf: [
          {
            properties: { kind: { const: 'A' }, number: { type: 'string' } },
            required: ['number'],
          },
          { properties: { kind: { const: 'B' }, number: { type: 'null' } } },
        ],
      },
    },
  },
};
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

describe('alternatives', () => {
  it('follows a $ref and keeps its keywords', () => {
    const [name] = alternatives(document, ref('Name'), '#/Name');
    expect(name).toMatchObject({ types: ['string'], minLength: 1, maxLength: 5, patterns: [] });
  });

  it('keeps the branches of a oneOf apart, each with the schema beside it', () => {
    const found = alternatives(document, ref('Account'), '#/Account');
    expect(found).toHaveLength(2);
    for (const alternative of found) {
      expect(alternative.closed).toBe(true);
      expect(alternative.required).toContain('kind');
      expect(alternative.branch?.siblings).toHaveLength(2);
    }
    expect(found[0]?.required).toContain('number');
  });

  it('merges allOf and drops what cannot be satisfied', () => {
    const found = alternatives(
      document,
      { allOf: [{ type: 'string', maxLength: 3 }, { minLength: 2 }] },
      '#/merged',
    );
    expect(found).toEqual([expect.objectContaining({ minLength: 2, maxLength: 3 })]);
    expect(
      alternatives(document, { allOf: [{ const: 'MOMO' }, { type: 'null' }] }, '#/never'),
    ).toEqual([]);
  });

  it.each([
    [{ type: 'string', contentEncoding: 'base64' }, 'contentEncoding'],
    [{ type: 'object', patternProperties: { '^x': {} } }, 'patternProperties'],
  ])('refuses a keyword it does not know, naming where: %j', (schema, keyword) => {
    expect(() => alternatives(document, schema, '#/here')).toThrow(UnsupportedSchemaError);
    expect(() => alternatives(document, schema, '#/here')).toThrow(
      new RegExp(`#/here.*${keyword}`),
    );
  });

  it("multiplies out the spec's UserInput into its three account variants", () => {
    const found = alternatives(openapiDocument, ref('UserInput'), '#/UserInput');
    expect(found.length).toBe(3);
  });
});

describe('followsAlternative and alternativeOf', () => {
  const found = alternatives(document, ref('Account'), '#/Account');

  it.each([
    [{ kind: 'A', number: '12' }, 0],
    [{ kind: 'B', number: null }, 1],
    [{ kind: 'B' }, 1],
  ])('tells which branch %j took', (value, index) => {
    expect(alternativeOf(document, found, value)).toBe(found[index]);
  });

  it.each([
    [{ kind: 'A' }, 'a required field missing'],
    [{ kind: 'A', number: '12', extra: 1 }, 'an unknown field of a closed object'],
    [{ kind: 'C', number: '1' }, 'a const of no branch'],
  ])('follows no branch with %j (%s)', (value, _why) => {
    expect(found.some((alternative) => followsAlternative(document, alternative, value))).toBe(
      false,
    );
  });

  it('reads strings by code point and numbers by their bounds', () => {
    const [name] = alternatives(document, ref('Name'), '#/Name');
    if (!name) throw new Error('no alternative');
    expect(followsAlternative(document, name, '👋🏾👋🏾')).toBe(true); // 4 code points
    expect(followsAlternative(document, name, 'abcdef')).toBe(false);
    const [bounded] = alternatives(
      document,
      { type: 'number', exclusiveMinimum: 0, maximum: 1 },
      '#/n',
    );
    if (!bounded) throw new Error('no alternative');
    expect([0, 0.5, 1, 1.5].map((n) => followsAlternative(document, bounded, n))).toEqual([
      false,
      true,
      true,
      false,
    ]);
  });
});

describe('jsonType and typeAllowed', () => {
  it.each([
    [null, 'null'],
    [[], 'array'],
    [{}, 'object'],
    [1, 'integer'],
    [1.5, 'number'],
    ['x', 'string'],
    [true, 'boolean'],
  ])('%j is %s', (value, type) => {
    expect(jsonType(value)).toBe(type);
  });

  it('lets an integer be a number, and anything be of no stated type', () => {
    expect(typeAllowed(['number'], 'integer')).toBe(true);
    expect(typeAllowed(['integer'], 'number')).toBe(false);
    expect(typeAllowed(undefined, 'string')).toBe(true);
  });
});
