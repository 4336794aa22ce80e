import { type OpenApiDocument, openapiDocument } from '@institution-api/types';
import { describe, expect, it } from 'vitest';
import { contentTypeConformance } from '../../src/checks/content-type-conformance.js';
import { notAServerError } from '../../src/checks/not-a-server-error.js';
import { responseHeadersConformance } from '../../src/checks/response-headers-conformance.js';
import { responseSchemaConformance } from '../../src/checks/response-schema-conformance.js';
import { statusCodeConformance } from '../../src/checks/status-code-conformance.js';
import { readContract } from '../../src/spec/contract.js';
import { contract, example, exchange, PROBLEM } from '../support/exchanges.js';

/** The spec with its documented 503 taken out of updateUser, and nothing else. */
function without503OnUpdate(): OpenApiDocument {
  const document = structuredClone(openapiDocument) as OpenApiDocument;
  const put = document.paths['/api/v1/external/users/{id}']?.put as {
    responses: Record<string, unknown>;
  };
  delete put.responses['503'];
  return document;
}

describe('not_a_server_error', () => {
  it('fails a 500 even though the spec documents it: a 500 is a bug of the service', () => {
    const outcome = notAServerError(
      exchange('createUser', 500, example('InternalProblem'), PROBLEM),
    );
    expect(outcome.ok).toBe(false);
    expect(outcome.message).toMatch(/500/);
  });

  it('passes a 503 only where the spec documents one', () => {
    const problem = {
      type: 'urn:institution-api:problem:unavailable',
      title: 'Unavailable',
      status: 503,
    };
    expect(notAServerError(exchange('createUser', 503, problem, PROBLEM)).ok).toBe(true);
    expect(notAServerError(exchange('updateUser', 503, problem, PROBLEM)).ok).toBe(true);
    const undocumented = readContract(without503OnUpdate());
    expect(notAServerError(exchange('createUser', 503, problem, PROBLEM, undocumented)).ok).toBe(
      true,
    );
    expect(notAServerError(exchange('updateUser', 503, problem, PROBLEM, undocumented)).ok).toBe(
      false,
    );
  });

  it('fails when no answer came at all', () => {
    const { answer: _none, ...sent } = exchange('createUser', 201, {});
    expect(notAServerError({ ...sent, error: 'ECONNRESET' })).toMatchObject({
      ok: false,
      message: 'no answer: ECONNRESET',
    });
  });
});

describe('status_code_conformance', () => {
  it('passes a documented status and fails another', () => {
    expect(statusCodeConformance(exchange('createUser', 201, {}))?.ok).toBe(true);
    expect(statusCodeConformance(exchange('createUser', 404, {}))).toMatchObject({
      ok: false,
      actual: '404',
    });
    expect(statusCodeConformance(exchange('updateUser', 404, {}))?.ok).toBe(true);
  });
});

describe('content_type_conformance', () => {
  it('wants the media type documented for the status, whatever its parameters', () => {
    expect(
      contentTypeConformance(
        exchange(
          'createUser',
          400,
          {},
          { 'content-type': 'application/problem+json; charset=utf-8' },
        ),
      )?.ok,
    ).toBe(true);
    expect(
      contentTypeConformance(
        exchange('createUser', 400, {}, { 'content-type': 'application/json' }),
      )?.ok,
    ).toBe(false);
    expect(contentTypeConformance(exchange('createUser', 201, {}, {}))).toMatchObject({
      ok: false,
      actual: 'no Content-Type',
    });
  });
});

describe('response_schema_conformance', () => {
  it('holds each operation to its own shape: the create answer is not an update answer', () => {
    const created = example('UserCreatedNew');
    const updated = example('UserUpdated');
    expect(responseSchemaConformance(contract, exchange('createUser', 201, created))?.ok).toBe(
      true,
    );
    expect(responseSchemaConformance(contract, exchange('updateUser', 200, updated))?.ok).toBe(
      true,
    );
    const wrong = responseSchemaConformance(contract, exchange('createUser', 201, updated));
    expect(wrong?.ok).toBe(false);
    expect(wrong?.message).toMatch(/must NOT have additional properties \((monthlyIncome|image)\)/);
  });

  it('fails an answer that is not JSON', () => {
    expect(
      responseSchemaConformance(contract, exchange('createUser', 201, '{"id":')),
    ).toMatchObject({ ok: false, message: 'a 201 answer is not JSON' });
  });
});

describe('response_headers_conformance', () => {
  it('checks Retry-After of a 429 against its schema (an integer >= 0)', () => {
    const limited = {
      type: 'urn:institution-api:problem:rate-limited',
      title: 'Too many requests',
      status: 429,
    };
    expect(
      responseHeadersConformance(
        contract,
        exchange('createUser', 429, limited, { ...PROBLEM, 'retry-after': '30' }),
      )?.ok,
    ).toBe(true);
    expect(
      responseHeadersConformance(
        contract,
        exchange('createUser', 429, limited, { ...PROBLEM, 'retry-after': 'soon' }),
      )?.ok,
    ).toBe(false);
    // A status the spec does not document is status_code_conformance's to report.
    expect(
      responseHeadersConformance(contract, exchange('createUser', 418, example('UserCreatedNew'))),
    ).toBeUndefined();
  });

  it('checks the RateLimit fields of any answer against their schema, and needs none', () => {
    const created = example('UserCreatedNew');
    const json = { 'content-type': 'application/json; charset=utf-8' };
    const check = (headers: Record<string, string>) =>
      responseHeadersConformance(contract, exchange('createUser', 201, created, headers))?.ok;
    expect(check(json)).toBe(true);
    expect(
      check({
        ...json,
        'ratelimit-policy': '"per-institution";q=60;w=60',
        ratelimit: '"per-institution";r=59;t=60',
      }),
    ).toBe(true);
    // as express-rate-limit's draft-8 writes them
    expect(
      check({
        ...json,
        'ratelimit-policy': '"per-institution"; q=60; w=60; pk=:ZDk0YzQ2ZjE5ZmRh:',
        ratelimit: '"per-institution"; r=59; t=60',
      }),
    ).toBe(true);
    expect(check({ ...json, ratelimit: 'limit=60, remaining=59' })).toBe(false);
  });
});
