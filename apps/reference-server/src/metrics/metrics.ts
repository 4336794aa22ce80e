import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The spec's operationIds of the two operations (openapi/paths/), and `other` for every other
 * request (health checks, docs, unknown paths, another method on a known path).
 */
export type OperationLabel = 'createUser' | 'updateUser' | 'other';

/** The reference server's metrics, in a registry of their own (one per app: no global state). */
export interface Metrics {
  /** What `GET /metrics` serves (Prometheus text format). */
  registry: Registry;
  /** `institution_api_requests_total{operation, status}`. */
  requests: Counter<'operation' | 'status'>;
  /** `institution_api_request_duration_seconds{operation}`. */
  requestDuration: Histogram<'operation'>;
  /** `institution_api_users_created_total`: the creates answered 201. */
  usersCreated: Counter;
}

/**
 * Request durations are a millisecond or a few on a healthy server (bench/figures.md), and up
 * to the storage's bounds when the database struggles (3 s for a connection, 5 s for a statement,
 * storage/postgres-database.ts), so the buckets start at 1 ms and reach past 5 s.
 */
export const durationBuckets = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

/**
 * The metrics METRICS_PORT serves (spec Assumptions, "Metrics"), through prom-client: names prefixed
 * `institution_api_`, units in the name.
 *
 * - `institution_api_requests_total{operation, status}`: answers sent, by operation and status code
 *   (a string, `"201"`);
 * - `institution_api_request_duration_seconds{operation}`: from the request's arrival to the last
 *   byte of its answer;
 * - `institution_api_database_up`: 1, or 0 during an outage of the database as the outage log sees
 *   it (`databaseUp`, storage/health/outage-log.ts): from the first call that failed for want of it until
 *   a call succeeds after a second without failures;
 * - `institution_api_users_created_total`: the `201`s of `createUser`;
 * - prom-client's default metrics of the process (CPU, memory, event-loop lag, GC, handles).
 */
export function createMetrics(options: { databaseUp: () => boolean }): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'institution_api_requests_total',
    help: 'Answers sent, by the operationId of the request (other: any other request) and status code.',
    labelNames: ['operation', 'status'] as const,
    registers: [registry],
  });
  const requestDuration = new Histogram({
    name: 'institution_api_request_duration_seconds',
    help: 'Time from the arrival of a request to the end of its answer, by operationId (other: any other request).',
    labelNames: ['operation'] as const,
    buckets: durationBuckets,
    registers: [registry],
  });
  const usersCreated = new Counter({
    name: 'institution_api_users_created_total',
    help: 'Users created: the createUser requests answered 201.',
    registers: [registry],
  });
  new Gauge({
    name: 'institution_api_database_up',
    help: '1 when the database answers, 0 during an outage (from the first call that failed until a call succeeds after a second without failures).',
    registers: [registry],
    collect() {
      this.set(options.databaseUp() ? 1 : 0);
    },
  });
  return { registry, requests, requestDuration, usersCreated };
}
