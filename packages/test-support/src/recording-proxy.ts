import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One exchange the proxy saw: what a sample sent and what the server answered. */
export interface Exchange {
  method: string;
  path: string;
  status: number;
}

/**
 * A reverse proxy in front of the reference server that records each exchange, so the tests
 * assert what the server really answered, whatever a sample prints. Bytes pass through untouched
 * (the signature covers them).
 */
export async function startRecordingProxy(target: URL): Promise<{
  url: string;
  exchanges: Exchange[];
  close: () => Promise<void>;
}> {
  const exchanges: Exchange[] = [];
  const server = createServer((incoming, outgoing) => {
    const forward = request(
      new URL(incoming.url ?? '/', target),
      { method: incoming.method, headers: { ...incoming.headers, host: target.host } },
      (answer) => {
        exchanges.push({
          method: incoming.method ?? '',
          path: incoming.url ?? '',
          status: answer.statusCode ?? 0,
        });
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forward.on('error', (error) => {
      outgoing.writeHead(502, { 'content-type': 'text/plain' });
      outgoing.end(`recording proxy: ${error.message}`);
    });
    incoming.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exchanges,
    close: () =>
      new Promise((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
