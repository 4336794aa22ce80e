import { createServer, type RequestListener, type Server, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { type ProblemKind, problemDocument, problemKinds, problemMediaType } from './problem.js';

/**
 * Timeouts of the reference server's connections (spec: Assumptions "Timeouts", response
 * `RequestTimeout`). Node's defaults let a slow body hold a connection for 300 s.
 */
export const httpTimeouts = {
  /** The request line and headers must arrive within this (`408` otherwise). */
  headersTimeoutMs: 10_000,
  /** The whole request, body included, must arrive within this (`408` otherwise). */
  requestTimeoutMs: 30_000,
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: 5_000,
  /** How often Node looks for requests past their timeouts (its default, 30 s, doubles them). */
  checkEveryMs: 1_000,
};

/** The timeouts of one server; tests shorten them. */
export type HttpTimeouts = typeof httpTimeouts;

/** What Node's HTTP parser reports, as the spec's problems. */
const parserProblems: Record<string, { kind: ProblemKind; detail: string }> = {
  ERR_HTTP_REQUEST_TIMEOUT: {
    kind: problemKinds.requestTimeout,
    detail: `The request did not arrive in time (headers within ${httpTimeouts.headersTimeoutMs / 1000} s, the whole request within ${httpTimeouts.requestTimeoutMs / 1000} s).`,
  },
  HPE_HEADER_OVERFLOW: {
    kind: problemKinds.headersTooLarge,
    detail: 'The request headers are larger than 16 KiB.',
  },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: {
    kind: problemKinds.payloadTooLarge,
    detail: 'The chunk extensions of the request body are too large.',
  },
};
const malformed = {
  kind: problemKinds.malformedRequest,
  detail: 'The request is not valid HTTP/1.1.',
};

/**
 * The reference server's HTTP server around `app`, with {@link httpTimeouts}, and whose parser
 * errors are answered as problem details like every other error (spec Assumptions, "Errors"): Node
 * would answer them with an empty body. As Node does, nothing is written when a response has
 * already started on the connection; the connection is then closed.
 */
export function createHttpServer(
  app: RequestListener,
  timeouts: HttpTimeouts = httpTimeouts,
): Server {
  const server = createServer(
    {
      headersTimeout: timeouts.headersTimeoutMs,
      requestTimeout: timeouts.requestTimeoutMs,
      keepAliveTimeout: timeouts.keepAliveTimeoutMs,
      connectionsCheckingInterval: timeouts.checkEveryMs,
      // An HTTP/1.1 request without Host is answered by the app (http/request-target.ts), with
      // the 400 problem of a malformed Host, rather than by Node with an empty 400.
      requireHostHeader: false,
    },
    app,
  );
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent: boolean } })._httpMessage;
    if (socket.writable && !inFlight?.headersSent) {
      const { kind, detail } = parserProblems[error.code ?? ''] ?? malformed;
      const body = JSON.stringify(problemDocument(kind, detail, undefined));
      socket.write(
        `HTTP/1.1 ${kind.status} ${STATUS_CODES[kind.status]}\r\n` +
          `Content-Type: ${problemMediaType}\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\n` +
          'X-Content-Type-Options: nosniff\r\n' +
          'Connection: close\r\n\r\n' +
          body,
      );
    }
    socket.destroy();
  });
  return server;
}
