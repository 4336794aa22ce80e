import type { RequestHandler } from 'express';
import type { Metrics, OperationLabel } from './metrics.js';

declare global {
  namespace Express {
    interface Locals {
      /** The spec's operationId of the route the request matched, set by {@link operation}. */
      operation?: Exclude<OperationLabel, 'other'>;
    }
  }
}

/** The first handler of an operation's route: names the operation for the metrics. */
export function operation(operationId: Exclude<OperationLabel, 'other'>): RequestHandler {
  return (_req, res, next) => {
    res.locals.operation = operationId;
    next();
  };
}

/**
 * Counts each answer once it is sent, into `institution_api_requests_total` and
 * `institution_api_request_duration_seconds` (and `institution_api_users_created_total` for a
 * `createUser` answered 201), under the operation {@link operation} named or `other`. The first
 * middleware of the app, so every answer counts, the refused ones included. A request whose
 * client went away before its answer was sent is not an answer and is not counted; neither are the
 * few that Node's HTTP parser answers itself (http/http-server.ts).
 *
 * This runs for every request, so the labelled children are looked up once per operation and
 * status rather than by prom-client's label hashing at every request.
 */
export function recordRequests(metrics: Metrics): RequestHandler {
  const counted = new Map<string, { inc(): void }>();
  const timed = new Map<OperationLabel, { observe(seconds: number): void }>();
  const counter = (operationLabel: OperationLabel, status: number) => {
    const key = `${operationLabel} ${status}`;
    let child = counted.get(key);
    if (!child) {
      child = metrics.requests.labels({ operation: operationLabel, status: String(status) });
      counted.set(key, child);
    }
    return child;
  };
  const histogram = (operationLabel: OperationLabel) => {
    let child = timed.get(operationLabel);
    if (!child) {
      child = metrics.requestDuration.labels({ operation: operationLabel });
      timed.set(operationLabel, child);
    }
    return child;
  };
  return (_req, res, next) => {
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const operationLabel = res.locals.operation ?? 'other';
      counter(operationLabel, res.statusCode).inc();
      histogram(operationLabel).observe(seconds);
      if (operationLabel === 'createUser' && res.statusCode === 201) metrics.usersCreated.inc();
    });
    next();
  };
}
