import { afterAll, beforeAll, expect, test } from 'vitest';
import { StorageUnavailableError } from '../../src/storage/health/unavailable.js';
import type { Storage } from '../../src/storage/types.js';
import { newUser, specSchemas, startTestServer, type TestServer } from './harness.js';

/** A database that has gone: every write fails as the engines' fault classifiers report it. */
function gone(storage: Storage): Storage {
  const fault = () =>
    Promise.reject(
      new StorageUnavailableError('PostgreSQL cannot be reached (ECONNREFUSED)', {
        cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
          code: 'ECONNREFUSED',
        }),
      }),
    );
  return { ...storage, createOrAddUser: fault, updateUser: fault };
}

let healthy: TestServer;
let server: TestServer;
beforeAll(async () => {
  healthy = await startTestServer();
  server = await startTestServer({ shareWith: healthy, wrapStorage: gone });
});
afterAll(async () => {
  await server?.close();
  await healthy?.close();
});

test.each([
  ['POST', '/api/v1/external/users'],
  ['PUT', '/api/v1/external/users/0190a0c4-1a2b-7c3d-8e4f-5a6b7c8d9e0f'],
])(
  '%s %s with the database unavailable: the documented 503 with Retry-After, no stack in the log',
  async (method, path) => {
    const answer = await server.send(method, path, { body: newUser() });
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('1');
    expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(answer.body).toMatchObject({
      type: 'urn:institution-api:problem:unavailable',
      title: 'Service unavailable',
      status: 503,
      instance: path,
    });
    const validate = specSchemas.validator('Problem');
    expect(validate(answer.body), JSON.stringify(validate.errors)).toBe(true);
    // The outage is logged by the storage's outage log, once; never as a failed request per call.
    expect(server.logs().filter((line) => line.msg === 'request failed')).toEqual([]);
    expect(JSON.stringify(answer.body)).not.toMatch(/ECONNREFUSED|5432/);
  },
);
