/**
 * An override handler that answers what the spec does not allow fails to compile: a status the
 * operation does not document, or a body that is not the documented schema.
 */
import { describe, expectTypeOf, it } from 'vitest';
import { createMockHandlers, documentedAnswer } from '../../src/index.js';

const mock = createMockHandlers({ baseUrl: 'https://api.example.test', institutions: [] });
const problem = {
  type: 'urn:institution-api:problem:unavailable',
  title: 'Service unavailable',
  status: 503,
};

describe('documentedAnswer', () => {
  it('compiles for a documented status and body', () => {
    mock.override('createUser', () =>
      documentedAnswer('createUser', 503, problem, { headers: { 'Retry-After': '1' } }),
    );
    mock.override('updateUser', () =>
      documentedAnswer('updateUser', 404, { ...problem, status: 404 }),
    );
    expectTypeOf(documentedAnswer('createUser', 409, problem).status).toEqualTypeOf<
      200 | 201 | 400 | 401 | 408 | 409 | 413 | 415 | 429 | 500 | 503
    >();
  });

  it('does not compile for a status the operation does not document', () => {
    // @ts-expect-error createUser documents no 418
    documentedAnswer('createUser', 418, problem);
    // @ts-expect-error updateUser documents no 201
    documentedAnswer('updateUser', 201, problem);
  });

  it('does not compile for a body that is not the documented schema', () => {
    // @ts-expect-error a 201 answers a UserCreated, not a problem
    documentedAnswer('createUser', 201, problem);
    // @ts-expect-error a problem's status is a number
    documentedAnswer('createUser', 409, { ...problem, status: '409' });
    // @ts-expect-error the override of createUser answers createUser's answers only
    mock.override('createUser', () => documentedAnswer('updateUser', 404, problem));
  });
});
