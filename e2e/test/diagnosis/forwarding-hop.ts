/**
 * A forwarding hop that changes a request's body after it was signed, as a legacy gateway or a
 * misconfigured proxy does between an integrator's code and the service: the code is right, the
 * service receives other bytes. The corpus sends some of its right programs through one.
 *
 * @module
 */
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Hop } from './corpus.ts';

const rewrites: Record<Hop, (body: Buffer) => Buffer> = {
  latin1: (body) => Buffer.from(body.toString('utf8'), 'latin1'),
  'double-encoding': (body) => Buffer.from(body.toString('latin1'), 'utf8'),
  'json-rewrite': (body) => Buffer.from(JSON.stringify(JSON.parse(body.toString('utf8')))),
};

/** Starts a hop on a free port of 127.0.0.1 that forwards to `target` with the body rewritten. */
export async function startForwardingHop(
  target: string,
  hop: Hop,
): Promise<{ url: string; close: () => Promise<void> }> {
  const to = new URL(target);
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = rewrites[hop](Buffer.concat(chunks));
      const headers: string[] = [];
      for (let i = 0; i + 1 < incoming.rawHeaders.length; i += 2) {
        const name = incoming.rawHeaders[i] as string;
        if (/^(content-length|transfer-encoding)$/i.test(name)) continue;
        headers.push(name, incoming.rawHeaders[i + 1] as string);
      }
      headers.push('Content-Length', String(body.length));
      const forward = request(
        {
          hostname: to.hostname,
          port: to.port,
          method: incoming.method,
          path: incoming.url,
          headers,
          setHost: false,
          agent: false,
        },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      forward.on('error', (error) => {
        outgoing.writeHead(502, { 'content-type': 'text/plain' });
        outgoing.end(`forwarding hop: ${error.message}`);
      });
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
