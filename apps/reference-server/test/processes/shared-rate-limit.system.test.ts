/**
 * Three server processes on one PostgreSQL with RATE_LIMIT_PER_MINUTE=30 and METRICS_PORT: the
 * limit is the institution's across the three, with the RateLimit header fields and a Retry-After
 * from the one shared window; the refusals of one key are limited across the three too
 * (REFUSALS_PER_MINUTE_PER_KEY); an outage of PostgreSQL answers 503, never "no limit", and shows
 * in each process's `institution_api_database_up`.
 */
import { freePort } from '@institution-api/test-support/free-port';
import { waitFor } from '@institution-api/test-support/wait-for';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type Sample, sampleValue, scrape } from '../metrics/scrape.js';
import {
  countStatuses,
  newCredential,
  newPerson,
  type Service,
  type SignedAnswer,
  sendSigned,
  startService,
  withPostgres,
} from './service.js';

const users = '/api/v1/external/users';
const unknownUser = `${users}/0190a0c4-1a2b-7c3d-8e4f-5a6b7c8d9e0f`;
const limit = 30;
const refusalLimit = 10;
const alpha = newCredential('Alpha Savings');
const beta = newCredential('Beta Bank');

/** The values of an answer's `RateLimit` field. */
function rateLimitOf(answer: SignedAnswer) {
  const match = /^"per-institution";r=(\d+);t=(\d+)$/.exec(answer.headers.get('ratelimit') ?? '');
  return match ? { remaining: Number(match[1]), resetSeconds: Number(match[2]) } : undefined;
}

withPostgres(
  'a rate limit shared by three processes on one PostgreSQL',
  { timeout: 60_000 },
  () => {
    let service: Service;
    const metricsPorts: number[] = [];
    const server = (index: number) => service.servers[index % 3]?.url ?? '';
    const scrapeAll = () =>
      Promise.all(metricsPorts.map((port) => scrape(`http://127.0.0.1:${port}/metrics`)));
    const sum = (scrapes: { samples: Sample[] }[], name: string, labels = {}) =>
      scrapes.reduce((total, { samples }) => total + (sampleValue(samples, name, labels) ?? 0), 0);

    beforeAll(async () => {
      for (let i = 0; i < 3; i++) metricsPorts.push(await freePort());
      // a PostgreSQL of its own: the outage test below stops it
      service = await startService(
        3,
        [alpha, beta],
        (index) => ({
          RATE_LIMIT_PER_MINUTE: String(limit),
          REFUSALS_PER_MINUTE_PER_KEY: String(refusalLimit),
          METRICS_PORT: String(metricsPorts[index]),
        }),
        { ownPostgres: true },
      );
    }, 120_000);
    afterAll(async () => {
      await service?.stop();
    });

    test('90 creates of one institution in one burst over three processes: exactly 30 succeed; the fields count down one shared window', async () => {
      const answers = await Promise.all(
        Array.from({ length: 90 }, (_, i) =>
          sendSigned(server(i), alpha, 'POST', users, newPerson()),
        ),
      );
      const counts = countStatuses(answers);
      const byProcess = [0, 1, 2].map((p) => countStatuses(answers.filter((_, i) => i % 3 === p)));
      console.log(
        `90 creates over 3 processes, RATE_LIMIT_PER_MINUTE=${limit}: ${JSON.stringify(counts)}; per process ${JSON.stringify(byProcess)}`,
      );
      expect(counts).toEqual({ 201: 30, 429: 60 });

      for (const answer of answers) {
        expect(answer.headers.get('ratelimit-policy')).toBe(`"per-institution";q=${limit};w=60`);
      }
      // Each success was counted once, in one count: the remaining values are 29 down to 0.
      const created = answers.filter((answer) => answer.status === 201);
      expect(
        created.map((answer) => rateLimitOf(answer)?.remaining).sort((a, b) => (a ?? 0) - (b ?? 0)),
      ).toEqual(Array.from({ length: limit }, (_, i) => i));

      // Every wait is the one window's, as PostgreSQL holds it: the seconds from the answer to its end.
      const expire = Number(
        await service.postgres.psql(`SELECT expire FROM rate_limits WHERE key = 'requests:' ||
        (SELECT institution_id FROM credentials WHERE public_key = '${alpha.publicKey}')`),
      );
      for (const answer of answers) {
        const seconds = rateLimitOf(answer)?.resetSeconds ?? -1;
        expect(seconds).toBeGreaterThanOrEqual(Math.floor((expire - answer.receivedAt) / 1000));
        expect(seconds).toBeLessThanOrEqual(Math.ceil((expire - answer.sentAt) / 1000));
      }
      const refused = answers.filter((answer) => answer.status === 429);
      for (const answer of refused) {
        expect(answer.body.type).toBe('urn:institution-api:problem:rate-limited');
        expect(rateLimitOf(answer)?.remaining).toBe(0);
        expect(answer.headers.get('retry-after')).toBe(
          String(Math.max(1, rateLimitOf(answer)?.resetSeconds ?? -1)),
        );
      }
      const retryAfter = refused.map((answer) => Number(answer.headers.get('retry-after')));
      console.log(
        `Retry-After of the 429s: ${Math.min(...retryAfter)}–${Math.max(...retryAfter)} s; the window ends ${expire - Date.now()} ms from now`,
      );

      // Another institution has a budget of its own.
      const other = await sendSigned(server(0), beta, 'POST', users, newPerson());
      expect(other.status).toBe(201);
      expect(rateLimitOf(other)?.remaining).toBe(limit - 1);

      // The three processes' metrics add up to what the clients saw.
      const scrapes = await scrapeAll();
      expect(scrapes.every((s) => s.status === 200)).toBe(true);
      const requests = 'institution_api_requests_total';
      expect(sum(scrapes, requests, { operation: 'createUser', status: '201' })).toBe(31);
      expect(sum(scrapes, requests, { operation: 'createUser', status: '429' })).toBe(60);
      expect(sum(scrapes, 'institution_api_users_created_total')).toBe(31);
      expect(
        sum(scrapes, 'institution_api_request_duration_seconds_count', { operation: 'createUser' }),
      ).toBe(91);
      expect(scrapes.map((s) => sampleValue(s.samples, 'institution_api_database_up'))).toEqual([
        1, 1, 1,
      ]);
      console.log(
        `/metrics of process 1 after the burst (excerpt):\n${scrapes[0]?.text
          .split('\n')
          .filter((line) =>
            /^institution_api_(requests_total|users_created|database_up)|^institution_api_request_duration_seconds_(count|sum|bucket\{.*le="0\.0(05|1)")/.test(
              line,
            ),
          )
          .join('\n')}`,
      );

      // The API ports do not serve the metrics.
      for (const { url } of service.servers)
        expect((await fetch(`${url}/metrics`)).status).toBe(404);
    });

    test('30 refused requests of one key over three processes: exactly 10 are answered 401, the others 429, in one shared count', async () => {
      const wrong = { ...alpha, secretKey: `${alpha.secretKey}-not-it` };
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          sendSigned(server(i), wrong, 'POST', users, newPerson()),
        ),
      );
      console.log(
        `30 refusals over 3 processes, REFUSALS_PER_MINUTE_PER_KEY=${refusalLimit}: ${JSON.stringify(countStatuses(answers))}`,
      );
      expect(countStatuses(answers)).toEqual({ 401: refusalLimit, 429: 30 - refusalLimit });
      for (const answer of answers.filter((a) => a.status === 429)) {
        expect(answer.headers.get('ratelimit-policy')).toBe(
          `"refusals-per-key";q=${refusalLimit};w=60`,
        );
        expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      // Counted in the database, under a prefix of their own.
      expect(
        Number(
          await service.postgres.psql(
            "SELECT count(*) FROM rate_limits WHERE key LIKE 'refused-by-key:%'",
          ),
        ),
      ).toBe(1);
      // The key's valid requests go on through every process: authenticated, and counted only by
      // the institution's own limit (which the burst above spent).
      for (let p = 0; p < 3; p++) {
        const answer = await sendSigned(server(p), alpha, 'PUT', unknownUser, newPerson());
        expect(answer.status).toBe(429);
        expect(answer.headers.get('ratelimit-policy')).toBe(`"per-institution";q=${limit};w=60`);
      }
    });

    test('PostgreSQL down: every process answers 503 with Retry-After: 1, no RateLimit fields, and database_up 0; back to 201 and 1 after', async () => {
      // Each process has looked Beta's key up within the credential cache's 5 s, so what fails
      // during the outage is the count.
      for (let p = 0; p < 3; p++) {
        expect((await sendSigned(server(p), beta, 'POST', users, newPerson())).status).toBe(201);
      }
      await service.postgres.pause();
      let resumed = false;
      try {
        const during = await Promise.all(
          [0, 1, 2].map((p) => sendSigned(server(p), beta, 'POST', users, newPerson())),
        );
        console.log(`during the outage: ${JSON.stringify(countStatuses(during))}`);
        for (const answer of during) {
          expect(answer.status).toBe(503);
          expect(answer.body.type).toBe('urn:institution-api:problem:unavailable');
          expect(answer.headers.get('retry-after')).toBe('1');
          expect(answer.headers.get('ratelimit')).toBeNull();
        }
        expect(
          (await scrapeAll()).map((s) => sampleValue(s.samples, 'institution_api_database_up')),
        ).toEqual([0, 0, 0]);

        await service.postgres.resume();
        resumed = true;
      } finally {
        if (!resumed) await service.postgres.resume();
      }
      // The outage is over once a call succeeds a second after the last failure (outage-log.ts).
      for (let p = 0; p < 3; p++) {
        await waitFor(
          async () => {
            const answer = await sendSigned(server(p), beta, 'POST', users, newPerson());
            if (answer.status !== 201) expect(answer.status).toBe(503);
            return answer.status === 201;
          },
          { timeoutMs: 20_000, message: `a 201 from process ${p} once PostgreSQL is back` },
        );
      }
      // Each process's health check is a call to the database: once one succeeds past the quiet
      // second, the process counts the database up again (its budget is not spent on it).
      await waitFor(
        async () => {
          for (let p = 0; p < 3; p++) await (await fetch(`${server(p)}/healthz`)).arrayBuffer();
          const up = (await scrapeAll()).map((s) =>
            sampleValue(s.samples, 'institution_api_database_up'),
          );
          return up.every((value) => value === 1);
        },
        { timeoutMs: 20_000, message: 'institution_api_database_up 1 on every process' },
      );
      for (let p = 0; p < 3; p++) {
        expect((await sendSigned(server(p), beta, 'POST', users, newPerson())).status).toBe(201);
      }
      expect(
        (await scrapeAll()).map((s) => sampleValue(s.samples, 'institution_api_database_up')),
      ).toEqual([1, 1, 1]);
    });
  },
);
