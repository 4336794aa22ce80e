/**
 * A deliberately broken implementation for the gallery: an HTTP server in front of the reference
 * server that injects one fault (a change to the request it forwards, or to the answer it
 * returns). The product is never changed: each fault lives here, in the test.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the faulty server received it (or as a fault rewrites it before forwarding). */
export interface FaultRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer;
}

/** An answer, from the reference server or made up by a fault. */
export interface FaultAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** One fault: answers a request, usually by forwarding it (changed or not) and changing the answer. */
export type Fault = (
  request: FaultRequest,
  forward: (request: FaultRequest) => Promise<FaultAnswer>,
) => Promise<FaultAnswer>;

const flat = (headers: IncomingHttpHeaders | Headers): Record<string, string> => {
  const entries = headers instanceof Headers ? [...headers.entries()] : Object.entries(headers);
  return Object.fromEntries(
    entries.filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
};

/** Starts a server on a free port of 127.0.0.1 that answers every request through `fault`. */
export async function startFaultyServer(
  upstream: string,
  fault: Fault,
): Promise<{ url: string; close(): Promise<void> }> {
  const forward = async (request: FaultRequest): Promise<FaultAnswer> => {
    const headers = { ...request.headers };
    delete headers.host;
    delete headers['content-length'];
    delete headers.connection;
    const response = await fetch(`${upstream}${request.path}`, {
      method: request.method,
      headers,
      ...(request.method === 'GET' || request.method === 'HEAD'
        ? {}
        : { body: new Uint8Array(request.body) }),
      redirect: 'manual',
    });
    const answerHeaders = flat(response.headers);
    delete answerHeaders['content-length'];
    delete answerHeaders['transfer-encoding'];
    delete answerHeaders.connection;
    delete answerHeaders['keep-alive'];
    return {
      status: response.status,
      headers: answerHeaders,
      body: Buffer.from(await response.arrayBuffer()),
    };
  };
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', async () => {
      try {
        const answer = await fault(
          {
            method: incoming.method ?? 'GET',
            path: incoming.url ?? '/',
            headers: flat(incoming.headers),
            body: Buffer.concat(chunks),
          },
          forward,
        );
        outgoing.writeHead(answer.status, {
          ...answer.headers,
          'content-length': String(answer.body.length),
        });
        outgoing.end(answer.body);
      } catch (error) {
        outgoing.writeHead(599);
        outgoing.end(String(error));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
