/**
 * Timeouts, retries and aborts against a real HTTP server on 127.0.0.1, through the public
 * client, because what callers rely on is the behaviour on real sockets.
 */

import {
  type Handler,
  sendJson,
  startServer,
  type TestServer,
} from '@institution-api/test-support/recording-server';
import { afterEach, describe, expect, it } from 'vitest';
import { UsersClientError } from '../src/errors.js';
import type { RetryOptions } from '../src/retry-policy.js';
import { createUsersClient, type UsersClientOptions } from '../src/users-client.js';
import {
  CREDENTIALS,
  momoAccountUser,
  rateLimitedProblem,
  userCreatedNew,
  userUpdated,
  validationProblem,
} from './support/examples.js';

const USER_ID = '3f0c9a52-6d1e-4b7a-9c2e-8a5d4f1b7e21';
const FAST: RetryOptions = { retries: 2, baseDelayMs: 5, maxDelayMs: 2000 };
const internal = { type: 'urn:institution-api:problem:internal', title: 'Internal', status: 503 };

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(handler: Handler, options: Partial<UsersClientOptions> = {}) {
  server = await startServer(handler);
  const users = createUsersClient({ baseUrl: server.url, ...CREDENTIALS, retry: FAST, ...options });
  return { users, requests: server.requests };
}

function expectIdenticalAttempts(requests: { body: string; headers: Record<string, unknown> }[]) {
  expect(requests.length).toBeGreaterThan(1);
  for (const request of requests) {
    expect(request.body).toBe(requests[0]?.body);
    expect(request.headers.authorization).toBe(requests[0]?.headers.authorization);
  }
}

describe('retries', () => {
  it('waits for Retry-After on a 429, then re-sends the same signed bytes', async () => {
    const { users, requests } = await serve((_req, res, n) =>
      n === 0
        ? sendJson(res, 429, rateLimitedProblem(), { 'Retry-After': '1' })
        : sendJson(res, 201, userCreatedNew()),
    );
    const started = performance.now();
    const { data, error } = await users.createUser(momoAccountUser());
    const elapsed = performance.now() - started;

    expect(error).toBeUndefined();
    expect(data?.created).toBe(true);
    expect(requests).toHaveLength(2);
    expectIdenticalAttempts(requests);
    expect(requests[0]?.body).toBe(JSON.stringify(momoAccountUser()));
    expect(elapsed).toBeGreaterThanOrEqual(950);
  });

  it('returns a 429 at once when Retry-After exceeds maxDelayMs', async () => {
    const { users, requests } = await serve(
      (_req, res) => sendJson(res, 429, rateLimitedProblem(), { 'Retry-After': '120' }),
      { retry: { ...FAST, maxDelayMs: 1000 } },
    );
    const { error, response } = await users.createUser(momoAccountUser());
    expect(requests).toHaveLength(1);
    expect(error).toMatchObject({ kind: 'http', status: 429 });
    expect(response?.headers.get('retry-after')).toBe('120');
  });

  it('retries 503 twice, then succeeds with the same bytes each time', async () => {
    const { users, requests } = await serve((_req, res, n) =>
      n < 2 ? sendJson(res, 503, internal) : sendJson(res, 200, userUpdated()),
    );
    const { data, error } = await users.updateUser(USER_ID, momoAccountUser());
    expect(error).toBeUndefined();
    expect(data?.user.monthlyIncome).toBe(2500.5);
    expect(requests).toHaveLength(3);
    expectIdenticalAttempts(requests);
    expect(requests.every((r) => r.method === 'PUT')).toBe(true);
  });

  it('gives up after the configured retries and returns the last 5xx', async () => {
    const { users, requests } = await serve((_req, res) => sendJson(res, 500, internal), {
      retry: { retries: 3, baseDelayMs: 1, maxDelayMs: 10 },
    });
    const { error } = await users.createUser(momoAccountUser());
    expect(requests).toHaveLength(4);
    expect(error).toMatchObject({ kind: 'http', status: 500 });
  });

  it('makes exactly one attempt with retry: false', async () => {
    const { users, requests } = await serve((_req, res) => sendJson(res, 503, internal), {
      retry: false,
    });
    const { error } = await users.createUser(momoAccountUser());
    expect(requests).toHaveLength(1);
    expect(error).toMatchObject({ kind: 'http', status: 503 });
  });

  it.each([400, 401, 404, 409, 413, 415])('does not retry a %i', async (status) => {
    const { users, requests } = await serve((_req, res) =>
      sendJson(res, status, { ...validationProblem(), status }),
    );
    const { error } = await users.createUser(momoAccountUser());
    expect(requests).toHaveLength(1);
    expect(error).toMatchObject({ kind: 'http', status });
  });

  it('retries a connection reset (network error) and then succeeds', async () => {
    const { users, requests } = await serve((_req, res, n) =>
      n === 0 ? res.socket?.destroy() : sendJson(res, 201, userCreatedNew()),
    );
    const { data, error } = await users.createUser(momoAccountUser());
    expect(error).toBeUndefined();
    expect(data?.created).toBe(true);
    expect(requests).toHaveLength(2);
    expectIdenticalAttempts(requests);
  });

  it('reports a network error once the retries are spent', async () => {
    const { users, requests } = await serve((_req, res) => res.socket?.destroy());
    const { error, response } = await users.createUser(momoAccountUser());
    expect(requests).toHaveLength(3);
    expect(response).toBeUndefined();
    expect(error).toBeInstanceOf(UsersClientError);
    expect(error?.kind).toBe('network');
  });

  it('reports a refused connection as a network error naming the code', async () => {
    const { users } = await serve(() => {});
    await server?.close();
    server = undefined;
    const { error } = await users.createUser(momoAccountUser());
    expect(error?.kind).toBe('network');
    expect((error as UsersClientError).message).toMatch(/ECONNREFUSED/);
  });
});

describe('timeouts', () => {
  it('reports a server that never answers as a timeout, after one attempt per retry', async () => {
    const { users, requests } = await serve(() => {}, {
      timeoutMs: 150,
      retry: { retries: 1, baseDelayMs: 1, maxDelayMs: 1 },
    });
    const started = performance.now();
    const { error, response } = await users.createUser(momoAccountUser());
    const elapsed = performance.now() - started;
    expect(error).toBeInstanceOf(UsersClientError);
    expect(error?.kind).toBe('timeout');
    expect(response).toBeUndefined();
    expect(requests).toHaveLength(2);
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(2000);
  });

  it('times out once with retry: false', async () => {
    const { users, requests } = await serve(() => {}, { timeoutMs: 100, retry: false });
    const { error } = await users.updateUser(USER_ID, momoAccountUser());
    expect(error?.kind).toBe('timeout');
    expect(requests).toHaveLength(1);
  });

  it('counts a body that stalls mid-way as a timed-out attempt, and retries it', async () => {
    const { users, requests } = await serve(
      (_req, res, n) => {
        if (n > 0) return sendJson(res, 201, userCreatedNew());
        res.writeHead(201, { 'Content-Type': 'application/json' });
        res.write('{"id":"3f0c9a52');
      },
      { timeoutMs: 150 },
    );
    const { data, error } = await users.createUser(momoAccountUser());
    expect(error).toBeUndefined();
    expect(data?.user.id).toBe(userCreatedNew().id);
    expect(requests).toHaveLength(2);
  });
});

describe("the caller's AbortSignal", () => {
  it('aborts a pending request at once and is not retried', async () => {
    // Aborted once the server holds the request (never answered), whatever the machine's load.
    const controller = new AbortController();
    let abortedAt = 0;
    const { users, requests } = await serve(
      () => {
        abortedAt = performance.now();
        controller.abort();
      },
      { timeoutMs: 5000 },
    );
    const { error, response } = await users.createUser(momoAccountUser(), {
      signal: controller.signal,
    });
    expect(performance.now() - abortedAt).toBeLessThan(1000);
    expect(error).toBeInstanceOf(UsersClientError);
    expect(error?.kind).toBe('aborted');
    expect(response).toBeUndefined();
    expect(requests).toHaveLength(1);
  });

  it('cuts short the wait before a retry', async () => {
    // Aborted during the 2 s the 503's Retry-After asks for, once its answer is sent.
    const controller = new AbortController();
    let abortedAt = 0;
    const { users, requests } = await serve(
      (_req, res) => {
        sendJson(res, 503, internal, { 'Retry-After': '2' });
        setTimeout(() => {
          abortedAt = performance.now();
          controller.abort(new Error('user cancelled'));
        }, 100);
      },
      { retry: { retries: 3, baseDelayMs: 5, maxDelayMs: 5000 } },
    );
    const { error } = await users.createUser(momoAccountUser(), { signal: controller.signal });
    expect(performance.now() - abortedAt).toBeLessThan(1000);
    expect(error?.kind).toBe('aborted');
    expect((error as UsersClientError).cause).toEqual(new Error('user cancelled'));
    expect(requests).toHaveLength(1);
  });

  it('sends nothing when the signal is already aborted', async () => {
    const { users, requests } = await serve((_req, res) => sendJson(res, 201, userCreatedNew()));
    const { error } = await users.createUser(momoAccountUser(), { signal: AbortSignal.abort() });
    expect(error?.kind).toBe('aborted');
    expect(requests).toHaveLength(0);
  });

  it('is reported as aborted, not timeout, even when it is itself a timeout signal', async () => {
    const { users } = await serve(() => {}, { timeoutMs: 5000 });
    const { error } = await users.createUser(momoAccountUser(), {
      signal: AbortSignal.timeout(100),
    });
    expect(error?.kind).toBe('aborted');
  });
});
