/**
 * The spec as the suite reads it (`readContract`), through the spec toolkit: every operation of
 * the bundled spec, and OAS 3.1's rules for parameters (an operation's parameter overrides its
 * Path Item's of the same name and location) and path items given by `$ref`.
 */
import type { OpenApiDocument } from '@institution-api/types';
import { openapiDocument } from '@institution-api/types';
import { describe, expect, it } from 'vitest';
import { documentedResponse, matchOperation, readContract } from '../../src/spec/contract.js';

/** A document of one path, `/things/{id}`, whose Path Item and PUT are given. */
function documentWith(item: Record<string, unknown>, components = {}): OpenApiDocument {
  return {
    openapi: '3.1.0',
    info: { title: 'things', version: '1.0.0' },
    paths: { '/things/{id}': item },
    components,
  };
}

const ok = { '200': { description: 'ok' } };
const idParameter = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };

describe('readContract', () => {
  it("reads the bundled spec's two operations, with their path parameters and answers", () => {
    const { operations } = readContract(openapiDocument);
    expect(operations.map(({ id, method, path }) => `${id} ${method} ${path}`)).toEqual([
      'createUser POST /api/v1/external/users',
      'updateUser PUT /api/v1/external/users/{id}',
    ]);
    const update = operations[1];
    expect(update?.pathParameters.map(({ name }) => name)).toEqual(['id']);
    expect(update?.body?.mediaType).toBe('application/json');
    expect(update?.secured).toBe(true);
    expect(update?.responses.map(({ status }) => status)).toContain('404');
  });

  it.each([
    [
      "an operation's optional parameter overrides the Path Item's required one of the same name",
      {
        parameters: [idParameter, { name: 'v', in: 'query', required: true }],
        put: { parameters: [{ name: 'v', in: 'query', required: false }], responses: ok },
      },
      undefined,
    ],
    [
      'a required query parameter that nothing overrides is refused, naming it',
      {
        parameters: [idParameter, { name: 'v', in: 'query', required: true }],
        put: { responses: ok },
      },
      /the required query parameter v is not supported/,
    ],
    [
      'a required query parameter of the same name in another location is not overridden',
      {
        parameters: [idParameter, { name: 'v', in: 'query', required: true }],
        put: { parameters: [{ name: 'v', in: 'header', required: false }], responses: ok },
      },
      /the required query parameter v is not supported/,
    ],
  ])('%s', (_, item, refused) => {
    const read = () => readContract(documentWith(item));
    if (refused) expect(read).toThrow(refused);
    else expect(read).not.toThrow();
  });

  it("takes an overridden path parameter's schema from the operation", () => {
    const { operations } = readContract(
      documentWith({
        parameters: [idParameter],
        put: {
          parameters: [{ ...idParameter, schema: { type: 'string', format: 'uuid' } }],
          responses: ok,
        },
      }),
    );
    expect(operations[0]?.pathParameters).toEqual([
      { name: 'id', schema: { type: 'string', format: 'uuid' } },
    ]);
  });

  it('follows a Path Item, a parameter and a response given by $ref', () => {
    const document = documentWith(
      { $ref: '#/components/pathItems/Thing' },
      {
        pathItems: {
          Thing: {
            parameters: [{ $ref: '#/components/parameters/Id' }],
            put: { responses: { '404': { $ref: '#/components/responses/Missing' } } },
          },
        },
        parameters: { Id: idParameter },
        responses: {
          Missing: {
            description: 'missing',
            content: { 'application/problem+json': { schema: { type: 'object' } } },
          },
        },
      },
    );
    const [operation] = readContract(document).operations;
    expect(operation?.id).toBe('PUT /things/{id}');
    expect(operation?.pathParameters.map(({ name }) => name)).toEqual(['id']);
    expect(operation?.responses).toEqual([
      { status: '404', content: { 'application/problem+json': { type: 'object' } }, headers: {} },
    ]);
    expect(operation?.secured).toBe(false);
  });
});

describe('matchOperation and documentedResponse', () => {
  const { operations } = readContract(openapiDocument);

  it.each([
    ['PUT', '/api/v1/external/users/a%2Fb', 'updateUser', { id: 'a/b' }],
    ['post', '/api/v1/external/users', 'createUser', {}],
    ['GET', '/api/v1/external/users', undefined, undefined],
    ['PUT', '/api/v1/external/users/a/b', undefined, undefined],
  ])('%s %s is %s', (method, path, id, parameters) => {
    const match = matchOperation(operations, method, path);
    expect(match?.operation.id).toBe(id);
    expect(match?.parameters).toEqual(parameters);
  });

  it('finds the exact status, else its range, else default', () => {
    const operation = {
      ...(operations[0] as (typeof operations)[number]),
      responses: [
        { status: '200', content: {}, headers: {} },
        { status: '4XX', content: {}, headers: {} },
        { status: 'default', content: {}, headers: {} },
      ],
    };
    expect(documentedResponse(operation, 200)?.status).toBe('200');
    expect(documentedResponse(operation, 404)?.status).toBe('4XX');
    expect(documentedResponse(operation, 503)?.status).toBe('default');
  });
});
