import { type OpenApiDocument, openapiDocument } from '@institution-api/types';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { schemaArbitrary } from '../../src/generate/schema-arbitrary.js';
import { UnsupportedSchemaError } from '../../src/generate/unsupported-schema.js';
import { textUnit } from '../../src/semantics/user-semantics.js';
import { readContract } from '../../src/spec/contract.js';

const userInput = { $ref: '#/components/schemas/UserInput' };
const options = { document: openapiDocument, textUnit };
const contract = readContract(openapiDocument);

describe('schemaArbitrary', () => {
  it("generates UserInput bodies that Ajv (the server's definition of valid) accepts", () => {
    const validate = contract.validator(userInput);
    const values = fc.sample(schemaArbitrary(userInput, options), { seed: 7, numRuns: 400 });
    const invalid = values.filter((value) => !validate(value));
    // oneOf is confirmed by Ajv in the run; the converter itself already gets it right here.
    expect(invalid).toEqual([]);
  });

  it('reaches every branch of the oneOf and optional fields both present and absent', () => {
    const values = fc.sample(schemaArbitrary(userInput, options), {
      seed: 3,
      numRuns: 300,
    }) as Record<string, unknown>[];
    const branches = new Set(values.map((value) => String(value.accountType ?? 'none')));
    expect([...branches].sort()).toEqual(['BANK', 'MOMO', 'none']);
    expect(values.some((value) => 'kyc' in value)).toBe(true);
    expect(values.some((value) => !('kyc' in value))).toBe(true);
  });

  it('follows the spec, not a list of fields: a new property of the schema appears in the traffic', () => {
    const document = structuredClone(openapiDocument) as OpenApiDocument;
    const schemas = document.components.schemas as Record<
      string,
      { properties: Record<string, unknown>; required: string[] }
    >;
    const input = schemas.UserInput;
    if (!input) throw new Error('no UserInput');
    input.properties.nickname = { type: 'string', minLength: 2, maxLength: 5, pattern: '^[a-z]+$' };
    input.required.push('nickname');
    const validate = readContract(document).validator(userInput);
    const values = fc.sample(schemaArbitrary(userInput, { document, textUnit }), {
      seed: 1,
      numRuns: 100,
    }) as Record<string, unknown>[];
    expect(
      values.every(
        (value) => typeof value.nickname === 'string' && /^[a-z]{2,5}$/.test(value.nickname),
      ),
    ).toBe(true);
    expect(values.filter((value) => !validate(value))).toEqual([]);
  });

  it('fails loudly on a keyword it does not know, naming where', () => {
    const schema = { type: 'object', properties: { tags: { type: 'array', uniqueItems: true } } };
    expect(() => schemaArbitrary(schema, options, '#/test')).toThrow(UnsupportedSchemaError);
    expect(() => schemaArbitrary(schema, options, '#/test')).toThrow(
      /#\/test\/properties\/tags: unknown keyword "uniqueItems"/,
    );
    expect(() => schemaArbitrary({ type: 'string', format: 'ipv6' }, options)).toThrow(
      /unknown string format "ipv6"/,
    );
  });

  it('never generates the text the spec refuses (U+0000, lone surrogates)', () => {
    const texts = fc.sample(fc.string({ unit: textUnit, maxLength: 40 }), {
      seed: 5,
      numRuns: 2000,
    });
    expect(texts.some((text) => text.includes('\u0000'))).toBe(false);
    // encodeURIComponent throws on a lone surrogate.
    for (const text of texts) expect(() => encodeURIComponent(text)).not.toThrow();
  });
});
