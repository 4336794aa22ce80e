/**
 * The client's retries against the real reference server while its PostgreSQL restarts: the
 * server answers 503 `unavailable` with `Retry-After: 1`, and the client waits that long (as it
 * does for a 429), re-sends the same signed bytes, and returns the created user once the database
 * is back; the caller never sees the outage.
 */
import { type RunningPostgres, startPostgres } from '@institution-api/test-support/postgres';
import {
  type RunningServer,
  startReferenceServer,
} from '@institution-api/test-support/reference-server';
import { describeWith } from '@institution-api/test-support/requirements';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createUsersClient } from '../src/users-client.js';
import { CREDENTIALS, momoAccountUser } from './support/examples.js';
import { requestOf } from './support/recording-fetch.js';

describeWith('postgres', 'createUser while the service database restarts', () => {
  let postgres: RunningPostgres;
  let server: RunningServer;
  beforeAll(async () => {
    postgres = await startPostgres();
    server = await startReferenceServer({
      credentials: [{ institution: 'Client outage test', ...CREDENTIALS }],
      databaseUrl: postgres.url,
    });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await postgres?.stop();
  });

  it('waits Retry-After between attempts, re-sends the same bytes, and succeeds once it is back', async () => {
    const attempts: { at: number; status: number; body: string }[] = [];
    const users = createUsersClient({
      baseUrl: server.url,
      ...CREDENTIALS,
      // Backoff alone would retry at once (up to 250 ms, then 500 ms): only Retry-After spaces
      // the attempts by a second.
      retry: { retries: 4, baseDelayMs: 250, maxDelayMs: 5_000 },
      fetch: async (input, init) => {
        const body = await requestOf(input, init).text();
        const response = await fetch(input, init);
        attempts.push({ at: performance.now(), status: response.status, body });
        return response;
      },
    });
    await postgres.pause();
    const downAt = performance.now();
    setTimeout(() => void postgres.resume(), 1_500);
    const { data, error } = await users.createUser(momoAccountUser());
    expect(error).toBeUndefined();
    expect(data?.created).toBe(true);

    const statuses = attempts.map((a) => a.status);
    expect(statuses.at(-1)).toBe(201);
    expect(statuses.slice(0, -1).length).toBeGreaterThan(0);
    expect(new Set(statuses.slice(0, -1))).toEqual(new Set([503]));
    for (let i = 1; i < attempts.length; i++) {
      // Retry-After: 1 was honoured: no attempt came sooner than a second after a 503.
      expect((attempts[i]?.at ?? 0) - (attempts[i - 1]?.at ?? 0)).toBeGreaterThanOrEqual(950);
    }
    expect(new Set(attempts.map((a) => a.body)).size).toBe(1);
    console.log(
      `client during a 1.5 s restart: ${statuses.join(' → ')} in ${Math.round(performance.now() - downAt)} ms`,
    );
  }, 30_000);
});
