import type { ErrorRequestHandler } from 'express';
import type { OutageLog } from '../storage/health/outage-log.js';
import { StorageUnavailableError } from '../storage/health/unavailable.js';
import { ResponseContractError } from './contract.js';
import { HttpProblem, problemKinds, sendProblem, validationProblem } from './problem.js';
import { maxBodyBytes } from './raw-body.js';

/** Seconds a client should wait before retrying after a 503 `unavailable` (spec: `ServiceUnavailable`). */
export const unavailableRetryAfterSeconds = 1;

/**
 * The one place that turns errors into RFC 9457 problems (spec Assumptions, "Errors").
 *
 * A {@link StorageUnavailableError} (the database down, full, too slow) is a 503 `unavailable`
 * with `Retry-After`, and is not logged per request: the storage's outage log reports the outage
 * once when it starts and once when it ends (storage/health/outage-log.ts).
 *
 * {@link HttpProblem}s are sent as they are. body-parser's errors become 413 (over 64 KiB), 415
 * (a `Content-Encoding`) or 400, and the router's failure to decode a path parameter 400. Everything else is a fault of the server: logged with its stack,
 * answered with a fixed 500 `internal` problem, so no stack trace or message leaks to the client.
 * A {@link ResponseContractError} says so honestly: the write it reports on may have happened
 * (retrying is still safe: a repeated create answers 200, a repeated update replaces again).
 */
export function errorHandler(outageLog?: Pick<OutageLog, 'refusedRequest'>): ErrorRequestHandler {
  return (error, req, res, next) => {
    if (res.headersSent) {
      req.log.error({ err: error }, 'error after the response started');
      return next(error);
    }
    const problem = asProblem(error);
    if (error instanceof StorageUnavailableError) outageLog?.refusedRequest();
    if (problem.kind === problemKinds.internal) req.log.error({ err: error }, 'request failed');
    sendProblem(req, res, problem);
  };
}

function asProblem(error: unknown): HttpProblem {
  if (error instanceof HttpProblem) return error;
  if (error instanceof StorageUnavailableError) {
    return new HttpProblem(
      problemKinds.unavailable,
      `The service's database is unavailable; nothing was written. Retry after ${unavailableRetryAfterSeconds} s.`,
      undefined,
      { 'Retry-After': String(unavailableRetryAfterSeconds) },
    );
  }
  // The router could not percent-decode a path parameter (`/users/%E0%A4%A`): the client's URL.
  if (error instanceof URIError && (error as { status?: unknown }).status === 400) {
    return validationProblem([
      { path: '/params', message: 'a path parameter is not valid percent-encoded UTF-8' },
    ]);
  }
  const type = (error as { type?: unknown } | null)?.type;
  switch (type) {
    case 'entity.too.large':
      return new HttpProblem(
        problemKinds.payloadTooLarge,
        `The request body is larger than ${maxBodyBytes} bytes.`,
      );
    case 'encoding.unsupported':
      return new HttpProblem(
        problemKinds.unsupportedMediaType,
        'The request body must be sent as application/json, without Content-Encoding.',
      );
    case 'request.aborted':
    case 'request.size.invalid':
      return new HttpProblem(
        problemKinds.malformedJson,
        'The request body ended before its announced length.',
      );
    default:
      if (error instanceof ResponseContractError) {
        return new HttpProblem(
          problemKinds.internal,
          'The service could not produce a valid response. The request may have taken effect; retrying is safe.',
        );
      }
      return new HttpProblem(
        problemKinds.internal,
        'The service failed to handle the request; nothing was written. Retrying is safe.',
      );
  }
}
