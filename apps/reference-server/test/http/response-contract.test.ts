import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Storage, StoredUser } from '../../src/storage/types.js';
import { newUser, startTestServer, type TestServer } from './harness.js';

/**
 * A deliberately broken dependency: storage that hands back a user the spec does not allow (a
 * mobile number not in `+233XXXXXXXXX` form, as a buggy migration might). The server must not
 * send that body: it answers the 500 problem and logs the violation.
 */
function corrupting(storage: Storage): Storage {
  const corrupt = (user: StoredUser): StoredUser => ({ ...user, mobileNumber: '024 123 4567' });
  return {
    ...storage,
    async createOrAddUser(institutionId, details) {
      const result = await storage.createOrAddUser(institutionId, details);
      return { ...result, user: corrupt(result.user) };
    },
    async updateUser(institutionId, userId, details) {
      const user = await storage.updateUser(institutionId, userId, details);
      return user && corrupt(user);
    },
  };
}

let healthy: TestServer;
let server: TestServer;
beforeAll(async () => {
  healthy = await startTestServer();
  server = await startTestServer({ shareWith: healthy, wrapStorage: corrupting });
});
afterAll(async () => {
  await server?.close();
  await healthy?.close();
});

test('a response that breaks the spec is answered as a 500 problem, never sent, and logged', async () => {
  const answer = await server.send('POST', '/api/v1/external/users', { body: newUser() });
  expect(answer.status).toBe(500);
  expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(answer.body).toEqual({
    type: 'urn:institution-api:problem:internal',
    title: 'Internal server error',
    status: 500,
    detail:
      'The service could not produce a valid response. The request may have taken effect; retrying is safe.',
    instance: '/api/v1/external/users',
  });
  expect(answer.text).not.toContain('024 123 4567');
  const failure = server
    .logs()
    .find((l) => l.reqId === answer.headers.get('x-request-id') && l.level === 'error');
  expect(failure?.msg).toBe('request failed');
  const err = failure?.err as { type: string; message: string; violations: unknown[] };
  expect(err.type).toBe('ResponseContractError');
  expect(err.message).toContain('breaks the spec');
  expect(err.violations).toContainEqual({
    path: '/response/mobileNumber',
    message: 'must match pattern "^\\+233\\d{9}$"',
  });
});

test('the update response is checked against its own shape too', async () => {
  const body = newUser();
  const created = await healthy.send('POST', '/api/v1/external/users', { body });
  expect(created.status).toBe(201);
  const { id } = created.body as { id: string };
  const answer = await server.send('PUT', `/api/v1/external/users/${id}`, { body });
  expect(answer.status).toBe(500);
  expect(answer.body).toMatchObject({ type: 'urn:institution-api:problem:internal' });
  // The same update through the healthy app is valid: the 500 came from the corrupt response.
  expect((await healthy.send('PUT', `/api/v1/external/users/${id}`, { body })).status).toBe(200);
});
