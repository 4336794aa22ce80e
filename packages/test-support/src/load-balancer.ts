/**
 * A small HTTP load balancer in front of several reference servers, for tests of a service made of
 * several processes: round-robin over the backends, and the passive health check of a real
 * balancer (nginx's `max_fails=1 fail_timeout=…`, HAProxy's `observe layer4`): a backend whose
 * connection fails is left out for a while, and a request that could not even connect to it is
 * sent to the next one instead. A request that reached a backend which then failed is NOT sent
 * again (that backend may have acted on it; real balancers do not repeat a non-idempotent request
 * either): the client gets a `502`.
 */
import { Agent, createServer, type IncomingHttpHeaders, request } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running load balancer. */
export interface LoadBalancer {
  /** http://127.0.0.1:PORT */
  url: string;
  /** Stops listening and closes every connection. */
  close(): Promise<void>;
}

/** Options of {@link startLoadBalancer}. */
export interface LoadBalancerOptions {
  /** How long a backend whose connection failed is left out (default 10 s). */
  failTimeoutMs?: number;
}

/**
 * The header naming the backend (its index in the list) that answered, on every answer; on a
 * `502`, the backend that failed (-1: none was available).
 */
export const backendHeader = 'x-backend';

/** Hop-by-hop fields (RFC 9110 §7.6.1), which a proxy does not forward. */
const hopByHop = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade']);

function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !hopByHop.has(name)));
}

/**
 * Starts a balancer on a free port of 127.0.0.1 in front of `backends` (base URLs). Each request
 * goes to the next backend in turn that is not left out; its body is read whole first, so that it
 * can go to another backend when the connection to the first is refused. Keep-alive connections
 * to the backends, as real balancers keep. Every answer carries {@link backendHeader}.
 */
export async function startLoadBalancer(
  backends: readonly string[],
  options: LoadBalancerOptions = {},
): Promise<LoadBalancer> {
  const failTimeoutMs = options.failTimeoutMs ?? 10_000;
  const agent = new Agent({ keepAlive: true });
  const leftOutUntil = backends.map(() => 0);
  let next = 0;

  /** The next backend in turn that is not left out and not yet tried for this request. */
  const pick = (tried: Set<number>) => {
    for (let step = 0; step < backends.length; step++) {
      const index = (next + step) % backends.length;
      if (!tried.has(index) && (leftOutUntil[index] ?? 0) <= Date.now()) {
        next = index + 1;
        return index;
      }
    }
    return undefined;
  };

  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks);
      const tried = new Set<number>();
      const answerBadGateway = (backend: number, detail: string) => {
        outgoing.writeHead(502, {
          'content-type': 'application/problem+json',
          [backendHeader]: String(backend),
        });
        outgoing.end(JSON.stringify({ title: 'Bad Gateway', status: 502, detail }));
      };
      const send = () => {
        const backend = pick(tried);
        if (backend === undefined) {
          answerBadGateway(-1, 'no backend is available');
          return;
        }
        tried.add(backend);
        const forward = request(
          new URL(incoming.url ?? '/', backends[backend]),
          {
            method: incoming.method,
            agent,
            headers: { ...endToEnd(incoming.headers), 'content-length': String(body.length) },
          },
          (answer) => {
            outgoing.writeHead(answer.statusCode ?? 502, {
              ...endToEnd(answer.headers),
              [backendHeader]: String(backend),
            });
            answer.pipe(outgoing);
          },
        );
        forward.on('error', (error: NodeJS.ErrnoException) => {
          leftOutUntil[backend] = Date.now() + failTimeoutMs;
          // Refused: the request never reached the backend, so another may take it.
          if (error.code === 'ECONNREFUSED') send();
          else if (!outgoing.headersSent) answerBadGateway(backend, error.message);
          else outgoing.destroy(error);
        });
        forward.end(body);
      };
      send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          agent.destroy();
          resolve();
        });
      }),
  };
}
