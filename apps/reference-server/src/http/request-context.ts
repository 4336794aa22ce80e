import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';

declare global {
  namespace Express {
    interface Request {
      /** The request id: the caller's sane `X-Request-Id`, or a fresh UUID. */
      id: string;
      /** The server's logger bound to this request's id. */
      log: Logger;
    }
  }
}

/** What an incoming `X-Request-Id` may look like to be reused: short, no spaces or control bytes. */
const saneRequestId = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Gives every request an id (the caller's `X-Request-Id` when it is sane, else a UUID), echoes it
 * in the `X-Request-Id` response header, binds a child logger to it, and writes one access log
 * line when the response is done: method, path (without the query), status, latency in ms. The
 * body and the headers are never logged; `Authorization` would be redacted by the logger anyway.
 */
export function requestContext(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const incoming = req.get('x-request-id');
    req.id = incoming !== undefined && saneRequestId.test(incoming) ? incoming : randomUUID();
    req.log = logger.child({ reqId: req.id });
    res.setHeader('X-Request-Id', req.id);
    const started = process.hrtime.bigint();
    res.once('close', () => {
      const latencyMs = Number(process.hrtime.bigint() - started) / 1e6;
      req.log.info(
        {
          method: req.method,
          path: req.originalUrl.split('?', 1)[0],
          status: res.statusCode,
          latencyMs: Math.round(latencyMs * 1000) / 1000,
          institution: res.locals.institution?.name,
          ...(res.writableFinished ? {} : { aborted: true }),
        },
        'request',
      );
    });
    next();
  };
}
