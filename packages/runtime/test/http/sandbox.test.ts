import { openapiDocument } from '@institution-api/types';
import { describe, expect, it } from 'vitest';
import { forcedAnswer, parsePrefer } from '../../src/http/index.js';

describe('parsePrefer (RFC 7240)', () => {
  it('reads code and example, ignoring other preferences and parameters', () => {
    expect(parsePrefer('code=409, example="ConflictProblem"')).toEqual({
      code: 409,
      example: 'ConflictProblem',
    });
    expect(parsePrefer('respond-async, wait=10;x=1, CODE=503')).toEqual({ code: 503 });
    expect(parsePrefer('code=abc').code).toBeNaN();
    expect(parsePrefer(undefined)).toEqual({});
  });
});

describe('forcedAnswer', () => {
  it("answers a documented status with its first example and its headers' examples, CORS aside", () => {
    const answer = forcedAnswer(openapiDocument, 'createUser', { code: 503 });
    expect(answer).toMatchObject({
      status: 503,
      contentType: 'application/problem+json',
      headers: { 'Retry-After': '1', RateLimit: expect.any(String) },
      body: { type: 'urn:institution-api:problem:unavailable', status: 503 },
    });
    expect(Object.keys((answer as { headers: object }).headers)).not.toContain(
      'Access-Control-Allow-Origin',
    );
    expect(forcedAnswer(openapiDocument, 'updateUser', { code: 200 })).toMatchObject({
      status: 200,
      contentType: 'application/json',
      body: { id: expect.any(String), monthlyIncome: expect.any(Number) },
    });
  });

  it('picks a named example, and names the header when the code or example is not documented', () => {
    expect(
      forcedAnswer(openapiDocument, 'createUser', { code: 409, example: 'ConflictProblem' }),
    ).toMatchObject({ body: { errors: [{ path: '/body/email' }] } });
    expect(forcedAnswer(openapiDocument, 'updateUser', { code: 201 })).toEqual({
      error: {
        path: '/headers/prefer',
        message: expect.stringMatching(/^prefer asks for a code updateUser does not document/),
      },
    });
    expect(forcedAnswer(openapiDocument, 'createUser', { code: 409, example: 'Nope' })).toEqual({
      error: { path: '/headers/prefer', message: expect.stringContaining('ConflictProblem') },
    });
    expect(forcedAnswer(openapiDocument, 'createUser', {})).toBeUndefined();
  });
});
