/**
 * A real HTTP server on 127.0.0.1 and a free port, recording every request it receives, so
 * retries, timeouts and aborts are tested against real sockets rather than a stubbed fetch.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** The body bytes exactly as received, decoded as UTF-8. */
  body: string;
  /** The same bytes, undecoded. */
  bytes: Buffer;
}

/** Answers the n-th request (0-based); may leave `response` unanswered to simulate a hang. */
export type Handler = (request: RecordedRequest, response: ServerResponse, n: number) => void;

export interface TestServer {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startServer(handler: Handler): Promise<TestServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const bytes = Buffer.concat(chunks);
      const recorded = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: bytes.toString('utf8'),
        bytes,
      };
      requests.push(recorded);
      handler(recorded, res, requests.length - 1);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** Sends `body` as JSON (or problem+json for error statuses) with extra headers. */
export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const type = status >= 400 ? 'application/problem+json' : 'application/json';
  response.writeHead(status, { 'Content-Type': type, ...headers });
  response.end(JSON.stringify(body));
}
