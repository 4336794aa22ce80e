import { openapiDocument } from '@institution-api/types';
import { describe, expect, it } from 'vitest';
import {
  componentName,
  dereference,
  pointerOf,
  pointerSegments,
  resolveLocalRef,
} from '../../src/spec/index.js';

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

describe('pointerSegments and pointerOf', () => {
  it.each([
    ['#', []],
    ['#/paths/~1api~1v1~1external~1users/post', ['paths', '/api/v1/external/users', 'post']],
    [
      '#/paths/~1users~1%7Bid%7D/put/parameters/0',
      ['paths', '/users/{id}', 'put', 'parameters', '0'],
    ],
    ['#/components/schemas/a~0b~1c', ['components', 'schemas', 'a~b/c']],
    ['/components/schemas', ['components', 'schemas']],
  ])('reads %s as its segments', (pointer, segments) => {
    expect(pointerSegments(pointer)).toEqual(segments);
  });

  it.each([
    [[], '#'],
    [['paths', '/users/{id}', 'put'], '#/paths/~1users~1{id}/put'],
    [['components', 'schemas', 'a~b/c'], '#/components/schemas/a~0b~1c'],
  ])('writes %j as %s, which resolves back to the same segments', (segments, pointer) => {
    expect(pointerOf(segments)).toBe(pointer);
    expect(pointerSegments(pointerOf(segments))).toEqual(segments);
  });
});
