import { openapiDocument } from '@institution-api/types';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { maxBodyBytes } from '../../src/http/raw-body.js';
import { startTestServer, type TestServer } from './harness.js';

/**
 * The bounds the spec gives the texts of a problem that can quote the request (OWASP API4 string
 * and integer limits; spec Assumptions, "Field bounds") hold for the largest body the server reads. Problems are written
 * by the error handler, outside the response validation of the operations, so the lengths are
 * compared with the spec's bounds here.
 */
const schemas = openapiDocument.components?.schemas as Record<
  string,
  { properties: Record<string, { maxLength?: number; maximum?: number }> }
>;
const pathBound = schemas.FieldError?.properties.path?.maxLength ?? 0;
const messageBound = schemas.FieldError?.properties.message?.maxLength ?? 0;
const omittedBound = schemas.Problem?.properties.errorsOmitted?.maximum ?? 0;

interface ValidationBody {
  type: string;
  errors: { path: string; message: string }[];
  errorsOmitted?: number;
}

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

async function validationProblem(text: string): Promise<ValidationBody> {
  expect(Buffer.byteLength(text)).toBeLessThanOrEqual(maxBodyBytes);
  const answer = await server.send('POST', '/api/v1/external/users', { body: text });
  expect(answer.status).toBe(400);
  const body = answer.body as ValidationBody;
  expect(body.type).toBe('urn:institution-api:problem:validation-error');
  return body;
}

describe('problem texts stay within the bounds the spec gives them', () => {
  test('the spec bounds them', () => {
    expect([pathBound, messageBound, omittedBound].every((bound) => bound > 0)).toBe(true);
  });

  test.each([
    ['at the top of the body', (key: string) => `{"${key}":0}`, 6],
    ['inside kyc', (key: string) => `{"kyc":{"${key}":0}}`, 14],
  ])('a key that fills a 64 KiB body, of `~` escaped as `~0`, %s', async (_, body, overhead) => {
    const key = '~'.repeat(maxBodyBytes - overhead);
    const { errors } = await validationProblem(body(key));
    const longest = errors.find((error) => error.path.includes('~0'));
    // The bound is close to what a body can reach: not a loose number.
    expect(longest?.path.length).toBeGreaterThan(pathBound - 64);
    expect(longest?.path.length).toBeLessThanOrEqual(pathBound);
    expect(longest?.message.length).toBeLessThanOrEqual(messageBound);
  });

  test('as many unknown keys as a 64 KiB body holds: errorsOmitted within its maximum', async () => {
    const keys: string[] = [];
    for (let i = 0; `{${keys.join(',')}}`.length < maxBodyBytes - 16; i++) {
      keys.push(`"${i.toString(36)}":0`);
    }
    const { errors, errorsOmitted } = await validationProblem(`{${keys.join(',')}}`);
    expect(errors).toHaveLength(50);
    expect(errorsOmitted).toBeGreaterThan(keys.length - 50);
    expect(errorsOmitted).toBeLessThanOrEqual(omittedBound);
  });
});
