import { type OpenApiDocument, openapiDocument } from '@institution-api/types';
import { describe, expect, it } from 'vitest';
import { toJsonSchema } from '../../src/spec/index.js';

/** A document with the shapes the helper must handle, and nothing else. */
function documentWith(schemas: Record<string, unknown>): OpenApiDocument {
  return {
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
    paths: {},
    components: { schemas },
  };
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

describe('toJsonSchema', () => {
  it('inlines every $ref of the bundled UserInput: no $ref left, each field with its rules', () => {
    const schema = toJsonSchema(openapiDocument, ref('UserInput'));
    expect(JSON.stringify(schema)).not.toContain('$ref');
    const properties = schema.properties as Record<string, Record<string, unknown>>;
    const spec = openapiDocument.components.schemas as Record<
      string,
      {
        properties?: Record<string, { description?: string }>;
        pattern?: string;
        required?: string[];
      }
    >;
    // firstName is a $ref to PersonName with a description beside it: both kept.
    expect(properties.firstName).toMatchObject({
      type: 'string',
      minLength: 1,
      maxLength: 100,
      description: spec.UserInput?.properties?.firstName?.description,
    });
    expect(properties.mobileNumber?.pattern).toBe(spec.GhanaMobileNumber?.pattern);
    expect(schema.required).toEqual(spec.UserInput?.required);
  });

  it.each([
    {
      given: 'siblings of a $ref',
      schemas: { A: { type: 'string', description: 'a' }, B: { ...ref('A'), description: 'b' } },
      name: 'B',
      want: { type: 'string', description: 'b' },
    },
    {
      given: 'OpenAPI keywords and x- extensions',
      schemas: {
        A: { type: 'object', example: {}, 'x-internal': true, properties: { n: { type: 'null' } } },
      },
      name: 'A',
      want: { type: 'object', properties: { n: { type: 'null' } } },
    },
    {
      given: 'properties named like those keywords, and values holding a $ref key',
      schemas: {
        A: {
          type: 'object',
          properties: { example: { type: 'string' }, 'x-field': ref('B') },
          default: { $ref: 'kept as a value' },
        },
        B: { const: 1 },
      },
      name: 'A',
      want: {
        type: 'object',
        properties: { example: { type: 'string' }, 'x-field': { const: 1 } },
        default: { $ref: 'kept as a value' },
      },
    },
    {
      given: 'refs inside anyOf, items and additionalProperties',
      schemas: {
        A: { anyOf: [ref('B'), { type: 'null' }], items: ref('B'), additionalProperties: ref('B') },
        B: { type: 'integer' },
      },
      name: 'A',
      want: {
        anyOf: [{ type: 'integer' }, { type: 'null' }],
        items: { type: 'integer' },
        additionalProperties: { type: 'integer' },
      },
    },
  ])('$given', ({ schemas, name, want }) => {
    expect(toJsonSchema(documentWith(schemas), ref(name))).toEqual(want);
  });

  it.each([
    {
      given: 'a schema that contains itself',
      schemas: { A: { type: 'object', properties: { a: ref('A') } } },
      error: /contains itself/,
    },
    { given: 'a reference to nothing', schemas: { A: ref('Missing') }, error: /points to nothing/ },
    {
      given: 'a reference to another document',
      schemas: { A: { $ref: 'other.yaml#/A' } },
      error: /another document/,
    },
  ])('throws for $given', ({ schemas, error }) => {
    expect(() => toJsonSchema(documentWith(schemas), ref('A'))).toThrow(error);
  });
});
