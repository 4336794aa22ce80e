/**
 * The metrics (spec Assumptions, "Metrics"): what an app counts in them, by operation and status, and
 * the listener that serves them. On the built server, across processes and through an outage of
 * PostgreSQL: test/processes/shared-rate-limit.system.test.ts.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMetrics, type Metrics } from '../../src/metrics/metrics.js';
import { createMetricsServer } from '../../src/metrics/metrics-server.js';
import { newUser, startTestServer, type TestServer } from '../http/harness.js';
import { requestCounts, sampleValue, scrape } from './scrape.js';

let databaseUp = true;
let metrics: Metrics;
let server: TestServer;
let metricsServer: Server;
let metricsUrl: string;

beforeAll(async () => {
  metrics = createMetrics({ databaseUp: () => databaseUp });
  server = await startTestServer({ metrics });
  metricsServer = createMetricsServer(metrics.registry).listen(0, '127.0.0.1');
  await new Promise((resolve) => metricsServer.once('listening', resolve));
  metricsUrl = `http://127.0.0.1:${(metricsServer.address() as AddressInfo).port}`;
});
afterAll(async () => {
  metricsServer?.closeAllConnections();
  metricsServer?.close();
  await server?.close();
});

describe('metrics', () => {
  test('each answer is counted by operationId and status, timed by operationId; creates by their 201s', async () => {
    const users = '/api/v1/external/users';
    const first = newUser();
    const created = await server.send('POST', users, { body: first });
    const id = (created.body as { id: string }).id;
    const statuses = [
      created.status,
      (await server.send('POST', users, { body: newUser() })).status,
      (await server.send('POST', users, { body: first })).status,
      (await server.send('POST', users, { body: newUser({ email: 'nope' }) })).status,
      (await server.send('POST', users, { body: newUser(), as: null })).status,
      (await server.send('PUT', `${users}/${id}`, { body: first })).status,
      (await server.send('PUT', `${users}/0190a0c4-1a2b-7c3d-8e4f-5a6b7c8d9e0f`, { body: first }))
        .status,
      (await server.send('GET', '/healthz')).status,
      (await server.send('GET', '/nowhere')).status,
      (await server.send('DELETE', users)).status,
    ];
    expect(statuses).toEqual([201, 201, 200, 400, 401, 200, 404, 200, 404, 405]);

    const { status, contentType, samples } = await scrape(`${metricsUrl}/metrics`);
    expect(status).toBe(200);
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(requestCounts(samples)).toEqual({
      'createUser 201': 2,
      'createUser 200': 1,
      'createUser 400': 1,
      'createUser 401': 1,
      'updateUser 200': 1,
      'updateUser 404': 1,
      'other 200': 1,
      'other 404': 1,
      'other 405': 1,
    });
    const duration = 'institution_api_request_duration_seconds';
    expect(sampleValue(samples, `${duration}_count`, { operation: 'createUser' })).toBe(5);
    expect(sampleValue(samples, `${duration}_count`, { operation: 'updateUser' })).toBe(2);
    expect(sampleValue(samples, `${duration}_count`, { operation: 'other' })).toBe(3);
    expect(sampleValue(samples, `${duration}_sum`, { operation: 'createUser' })).toBeGreaterThan(0);
    // Cumulative buckets: every create took less than the last finite one (10 s).
    expect(sampleValue(samples, `${duration}_bucket`, { operation: 'createUser', le: '10' })).toBe(
      5,
    );
    expect(
      sampleValue(samples, `${duration}_bucket`, { operation: 'createUser', le: '+Inf' }),
    ).toBe(5);
    expect(sampleValue(samples, 'institution_api_users_created_total')).toBe(2);
    expect(sampleValue(samples, 'institution_api_database_up')).toBe(1);
    // prom-client's default metrics of the process.
    for (const name of [
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_heap_size_used_bytes',
      'nodejs_eventloop_lag_seconds',
    ]) {
      expect(sampleValue(samples, name), name).toBeTypeOf('number');
    }
  });

  test('institution_api_database_up reads the outage log at each scrape', async () => {
    databaseUp = false;
    expect(
      sampleValue((await scrape(`${metricsUrl}/metrics`)).samples, 'institution_api_database_up'),
    ).toBe(0);
    databaseUp = true;
    expect(
      sampleValue((await scrape(`${metricsUrl}/metrics`)).samples, 'institution_api_database_up'),
    ).toBe(1);
  });

  test('the listener serves GET /metrics only; the API port does not serve /metrics', async () => {
    expect((await fetch(`${metricsUrl}/`)).status).toBe(404);
    expect((await fetch(`${metricsUrl}/metrics/`)).status).toBe(404);
    const post = await fetch(`${metricsUrl}/metrics`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    const head = await fetch(`${metricsUrl}/metrics`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    const onApiPort = await server.send('GET', '/metrics');
    expect(onApiPort.status).toBe(404);
    expect(onApiPort.body).toMatchObject({ type: 'urn:institution-api:problem:not-found' });
  });

  test('each app has a registry of its own: nothing leaks between them', async () => {
    const other = createMetrics({ databaseUp: () => true });
    const second = await startTestServer({ shareWith: server, metrics: other });
    try {
      await second.send('POST', '/api/v1/external/users', { body: newUser() });
      const samples = (await other.registry.metrics()).split('\n');
      expect(samples).toContain(
        'institution_api_requests_total{operation="createUser",status="201"} 1',
      );
      expect(samples).toContain('institution_api_users_created_total 1');
    } finally {
      await second.close();
    }
  });
});
