import { openapiDocument } from '@institution-api/types';
import { describe, expect, it } from 'vitest';
import { componentName, dereference, resolveLocalRef } from '../../src/spec/index.js';

const document = {
  components: {
    schemas: { 'a/b': { type: 'string' }, Alias: { $ref: '#/components/schemas/Name' }, Name: {} },
    responses: { Loop: { $ref: '#/components/responses/Loop' } },
  },
};

describe('resolveLocalRef', () => {
  it('follows a JSON Pointer, with ~1 and ~0 escapes', () => {
    expect(resolveLocalRef(document, '#/components/schemas/a~1b')).toEqual({ type: 'string' });
    expect(resolveLocalRef(openapiDocument, '#/components/schemas/UserInput')).toBe(
      openapiDocument.components.schemas?.UserInput,
    );
  });

  it.each([
    ['./UserInput.yaml', /another document \(\.\/UserInput\.yaml\); give a bundled spec/],
    ['#/components/schemas/Nobody', /#\/components\/schemas\/Nobody points to nothing/],
  ])('refuses %s loudly', (ref, message) => {
    expect(() => resolveLocalRef(document, ref)).toThrow(message);
  });
});

describe('dereference', () => {
  it('follows a chain of references, and gives any other value back as it is', () => {
    expect(dereference(document, { $ref: '#/components/schemas/Alias' })).toEqual({});
    const inline = { type: 'number' };
    expect(dereference(document, inline)).toBe(inline);
    expect(dereference(document, undefined)).toBeUndefined();
  });

  it('refuses a circular chain', () => {
    expect(() => dereference(document, { $ref: '#/components/responses/Loop' })).toThrow(
      /is circular/,
    );
  });
});

describe('componentName', () => {
  it.each([
    [{ $ref: '#/components/schemas/UserInput' }, 'schemas', 'UserInput'],
    ['#/components/examples/MomoAccountUser', 'examples', 'MomoAccountUser'],
    [{ $ref: '#/components/schemas/UserInput' }, 'examples', undefined],
    [{ $ref: '#/components/schemas/UserInput/properties/email' }, 'schemas', undefined],
    [{ type: 'string' }, 'schemas', undefined],
  ])('names the component of %j (%s): %s', (value, kind, name) => {
    expect(componentName(value, kind)).toBe(name);
  });
});
