import { openapiDocument } from '@institution-api/types';
import { describe, expect, it } from 'vitest';
import {
  operationById,
  operationsOf,
  parametersOf,
  requestExamples,
  responseExamples,
} from '../../src/spec/index.js';

const examples = openapiDocument.components.examples as Record<string, { value: unknown }>;

describe('operations', () => {
  it("lists the spec's operations with their method and path", () => {
    expect(operationsOf(openapiDocument).map(({ id, method, path }) => [id, method, path])).toEqual(
      [
        ['createUser', 'post', '/api/v1/external/users'],
        ['updateUser', 'put', '/api/v1/external/users/{id}'],
      ],
    );
    expect(() => operationById(openapiDocument, 'deleteUser')).toThrow(
      'The spec has no operation deleteUser.',
    );
  });

  it("gives an operation's parameters, the Path Item's first, references followed", () => {
    const names = parametersOf(openapiDocument, operationById(openapiDocument, 'updateUser')).map(
      (parameter) => [parameter.in, parameter.name],
    );
    expect(names).toContainEqual(['path', 'id']);
    expect(names).toContainEqual(['header', 'Prefer']);
  });
});

describe('examples', () => {
  it("reads createUser's request examples by name, with their component and value", () => {
    const named = requestExamples(openapiDocument, 'createUser');
    expect(named.map((example) => example.component)).toEqual([
      'MomoAccountUser',
      'BankAccountUser',
      'UserWithoutAccount',
    ]);
    expect(named[0]?.value).toEqual(examples.MomoAccountUser?.value);
  });

  it("reads an answer's examples, and none for an undocumented status", () => {
    const created = responseExamples(openapiDocument, 'createUser', 201);
    expect(created[0]?.value).toEqual(examples.UserCreatedNew?.value);
    expect(responseExamples(openapiDocument, 'createUser', 418)).toEqual([]);
  });
});
