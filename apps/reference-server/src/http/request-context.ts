import { randomUUID } from 'node:crypto';
import type { Express as ExpressApp, RequestHandler } from 'express';
import type { Logger } from 'pino';

declare global {
  namespace Express {
    interface Request {
      /** The request id: the caller's sane `X-Request-Id`, or a fresh UUID. */
      id: string;
      /** The server's logger bound to this request's id, made when first used. */
      log: Logger;
    }
  }
}

/** What an incoming `X-Request-Id` may look like to be reused: short, no spaces or control bytes. */
const saneRequestId = /^[A-Za-z0-9._:-]{1,128}$/;

const requestLoggers = new WeakMap<object, Logger>();

/**
 * Gives every request an id (the caller's `X-Request-Id` when it is sane, else a UUID), echoes it
 * in the `X-Request-Id` response header with `X-Content-Type-Options: nosniff`, and writes one
 * access line when the response is done: method, path (without the query), status, latency in ms.
 * The body and the headers are never logged.
 *
 * This runs for every request, so it is kept cheap: `req.log`, a pino child bound to
 * the request id, is made only when something logs about the request (a refused signature, an
 * error), and the access line, whose fields are fixed and hold no secret, goes through a logger
 * without the redaction pass (`redactedPaths`) that every other line gets.
 */
export function requestContext(app: ExpressApp, logger: Logger): RequestHandler {
  Object.defineProperty(app.request, 'log', {
    configurable: true,
    get(this: Express.Request): Logger {
      let bound = requestLoggers.get(this);
      if (!bound) {
        bound = logger.child({ reqId: this.id });
        requestLoggers.set(this, bound);
      }
      return bound;
    },
  });
  const accessLog = logger.child({}, { redact: [] });

  return (req, res, next) => {
    const incoming = req.headers['x-request-id'];
    req.id = typeof incoming === 'string' && saneRequestId.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', req.id);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    const started = process.hrtime.bigint();
    res.once('close', () => {
      const latencyMs = Number(process.hrtime.bigint() - started) / 1e6;
      accessLog.info(
        {
          reqId: req.id,
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
