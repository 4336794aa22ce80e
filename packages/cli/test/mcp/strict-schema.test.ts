/**
 * The strict profile (`mcp --strict-schemas`, strict-schema.ts) of the tools' input schemas,
 * checked against the rules OpenAI publishes for strict function calling and Structured
 * Outputs ("Supported schemas"): the root an object; every object with `additionalProperties:
 * false` and every property in `required`; only the keywords of the subset; at most 5 levels of
 * nesting, 100 properties, 500 values of an enum and 15,000 characters of names and values (the
 * limits as first published; later ones are larger). Then how arguments sent against it read
 * as the spec's: a `null` the profile added is a property left out, a `null` the spec allows stays.
 */
import { openapiDocument } from '@institution-api/types';
import { describe, expect, it } from 'vitest';
import { strictProfile } from '../../src/mcp/strict-schema.js';
import { deriveOperationTools } from '../../src/mcp/tool-definitions.js';

type Schema = Record<string, unknown>;

/** The keywords strict mode takes (string `pattern`/`format` and number bounds it also takes; the profile leaves them out). */
const supported = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  'description',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
]);
const types = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);

/** Every breach of OpenAI's strict rules in `schema`, as `path: rule`. */
function strictBreaches(root: Schema): string[] {
  const breaches: string[] = [];
  let properties = 0;
  let characters = 0;
  if (root.type !== 'object' || 'anyOf' in root) breaches.push('/: the root must be an object');
  const walk = (schema: Schema, at: string, depth: number) => {
    for (const keyword of Object.keys(schema)) {
      if (!supported.has(keyword)) breaches.push(`${at}: ${keyword} is not supported`);
    }
    if ('type' in schema && !(typeof schema.type === 'string' && types.has(schema.type))) {
      breaches.push(`${at}: type must be one type (no arrays)`);
    }
    if (Array.isArray(schema.enum)) {
      if (schema.enum.length > 500) breaches.push(`${at}: more than 500 enum values`);
      characters += schema.enum.map(String).join('').length;
    }
    if (Array.isArray(schema.anyOf)) {
      for (const [index, branch] of schema.anyOf.entries()) {
        walk(branch as Schema, `${at}/anyOf/${index}`, depth);
      }
    }
    if (schema.items !== undefined) walk(schema.items as Schema, `${at}/items`, depth);
    if (schema.type === 'object') {
      if (depth > 5) breaches.push(`${at}: more than 5 levels of nesting`);
      if (schema.additionalProperties !== false) {
        breaches.push(`${at}: additionalProperties must be false`);
      }
      const names = Object.keys((schema.properties ?? {}) as Schema);
      properties += names.length;
      characters += names.join('').length;
      const required = (schema.required ?? []) as string[];
      for (const name of names) {
        if (!required.includes(name)) breaches.push(`${at}/properties/${name}: not required`);
        walk(
          (schema.properties as Record<string, Schema>)[name] as Schema,
          `${at}/properties/${name}`,
          depth + 1,
        );
      }
    }
  };
  walk(root, '', 1);
  if (properties > 100) breaches.push(`/: ${properties} properties, more than 100`);
  if (characters > 15_000) breaches.push(`/: ${characters} characters of names and values`);
  return breaches;
}

describe('the strict profile of the tools', () => {
  const spec = deriveOperationTools(openapiDocument);
  const strict = deriveOperationTools(openapiDocument, { strictSchemas: true });

  it.each(spec.map(({ tool }) => tool.name))(
    '%s: the spec schema breaks the rules (why a profile)',
    (name) => {
      const tool = spec.find(({ tool }) => tool.name === name)?.tool;
      expect(strictBreaches(tool?.inputSchema as Schema)).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/not required|maxLength is not supported|type must be one type/),
        ]),
      );
    },
  );

  it.each(strict.map(({ tool }) => tool.name))('%s: keeps every rule of strict mode', (name) => {
    const tool = strict.find(({ tool }) => tool.name === name)?.tool;
    expect(strictBreaches(tool?.inputSchema as Schema)).toEqual([]);
  });

  it.each(strict.map(({ tool }) => tool.name))(
    '%s: offers every field of the spec, its rules in words',
    (name) => {
      const fromSpec = spec.find(({ tool }) => tool.name === name)?.tool.inputSchema as Schema;
      const profile = strict.find(({ tool }) => tool.name === name)?.tool.inputSchema as Schema;
      expect(Object.keys(profile.properties as Schema)).toEqual(
        Object.keys(fromSpec.properties as Schema),
      );
      const email = (profile.properties as Record<string, Schema>).email;
      expect(email).toEqual({
        type: 'string',
        description: expect.stringMatching(/Rules: format email; at most 254 characters\.$/),
      });
    },
  );
});

describe('strictProfile', () => {
  const schema: Schema = {
    type: 'object',
    additionalProperties: false,
    required: ['name'],
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 10, description: 'A name.' },
      nickname: { type: ['string', 'null'], maxLength: 5 },
      verified: { type: 'boolean', default: false },
      kyc: {
        type: 'object',
        additionalProperties: false,
        properties: { address: { type: ['string', 'null'] }, level: { type: 'integer' } },
      },
    },
  };
  const profile = strictProfile(schema);

  it('requires every property, null for one left out, no type arrays, rules in words', () => {
    expect(profile.schema).toEqual({
      type: 'object',
      additionalProperties: false,
      required: ['name', 'nickname', 'verified', 'kyc'],
      properties: {
        name: { type: 'string', description: 'A name. Rules: not empty; at most 10 characters.' },
        nickname: {
          description: 'Rules: at most 5 characters.',
          anyOf: [{ type: 'string' }, { type: 'null' }],
        },
        verified: {
          description: 'Rules: default false. Null when left out.',
          anyOf: [{ type: 'boolean' }, { type: 'null' }],
        },
        kyc: {
          description: 'Null when left out.',
          anyOf: [
            {
              type: 'object',
              additionalProperties: false,
              required: ['address', 'level'],
              properties: {
                address: { anyOf: [{ type: 'string' }, { type: 'null' }] },
                level: {
                  description: 'Null when left out.',
                  anyOf: [{ type: 'integer' }, { type: 'null' }],
                },
              },
            },
            { type: 'null' },
          ],
        },
      },
    });
    expect(strictBreaches(profile.schema)).toEqual([]);
  });

  it.each([
    {
      given: 'nulls the profile added',
      sent: { name: 'a', nickname: null, verified: null, kyc: null },
      want: { name: 'a', nickname: null },
    },
    {
      given: 'nulls inside an object',
      sent: { name: 'a', nickname: 'b', verified: true, kyc: { address: null, level: null } },
      want: { name: 'a', nickname: 'b', verified: true, kyc: { address: null } },
    },
  ])('reads $given as the spec does', ({ sent, want }) => {
    expect(profile.asSpecArguments(sent)).toEqual(want);
  });

  it.each(['allOf', 'not', 'if', 'patternProperties'])(
    'refuses a schema with %s, naming where',
    (keyword) => {
      expect(() =>
        strictProfile({ type: 'object', properties: { a: { type: 'string', [keyword]: {} } } }),
      ).toThrow(`The strict profile cannot express ${keyword} (at /properties/a).`);
    },
  );
});
