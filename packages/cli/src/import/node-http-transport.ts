/**
 * The import's transport (docs/import.md "Memory and speed"): the client's attempts sent with
 * `node:http` or `node:https` on keep-alive connections, given to the client in place of
 * `fetch`. The client above it is unchanged: it signs, times out, retries and reads every row
 * exactly as for any other caller.
 *
 * Why not `fetch`: the import shares the machine's cores with the service it feeds, so its own
 * CPU per row sets its speed, and a profile put half of that CPU in undici's `fetch` (a second
 * `Request` built from the client's, body and answer streams and their promises). The import's
 * target, rows/s against the server's own creates/s, is in docs/import.md ("Targets").
 *
 * Used by the CLI only, which runs on Node; the library sends with the platform's `fetch`.
 *
 * @module
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Answer, Transport } from '@institution-api/client';

/** A transport on `node:http` and the agents it keeps connections in. */
export interface NodeHttpTransport {
  send: Transport;
  /** Closes the idle connections, so the process can exit without waiting for their timeout. */
  close(): void;
}

/**
 * Keeps up to `sockets` connections open per origin (the import's concurrency), reused from one
 * row to the next. The answer's body comes back as text (UTF-8), its status and headers as a
 * body-less `Response`. The attempt's `signal` destroys the request. A request that could not
 * be sent or answered rejects as `fetch` does, a `TypeError('fetch failed')` with the system
 * error (its `code`, ECONNREFUSED) as `cause`, so the CLI's messages read the same.
 */
export function createNodeHttpTransport({
  sockets,
  env = process.env,
  execArgv = process.execArgv,
}: {
  sockets: number;
  /** Where `NODE_USE_ENV_PROXY`, `NODE_OPTIONS` and `HTTP(S)_PROXY`/`NO_PROXY` are read. */
  env?: NodeJS.ProcessEnv;
  execArgv?: readonly string[];
}): NodeHttpTransport {
  // `fetch` and Node's global agent go through HTTP(S)_PROXY when Node is told to use them
  // (NODE_USE_ENV_PROXY=1 or --use-env-proxy); an agent of our own does only when given them.
  const proxied =
    env.NODE_USE_ENV_PROXY === '1' ||
    execArgv.includes('--use-env-proxy') ||
    (env.NODE_OPTIONS ?? '').split(/\s+/).includes('--use-env-proxy');
  const options = { keepAlive: true, maxSockets: sockets, ...(proxied && { proxyEnv: env }) };
  const http = new HttpAgent(options);
  const https = new HttpsAgent(options);
  const send: Transport = ({ method, url, headers, body }, signal) =>
    new Promise<Answer>((resolve, reject) => {
      const failed = (error: Error) =>
        reject(
          error.name === 'AbortError' ? error : new TypeError('fetch failed', { cause: error }),
        );
      const secure = url.startsWith('https:');
      const outgoing = (secure ? httpsRequest : httpRequest)(
        url,
        {
          method,
          headers: { ...headers, 'Content-Length': Buffer.byteLength(body) },
          agent: secure ? https : http,
          signal,
        },
        (incoming) => {
          incoming.setEncoding('utf8');
          let text = '';
          incoming.on('data', (chunk: string) => {
            text += chunk;
          });
          incoming.once('error', failed);
          incoming.once('end', () => {
            try {
              resolve({ response: responseOf(incoming), text });
            } catch (error) {
              failed(error as Error); // a status a Response cannot carry (not 200-599)
            }
          });
        },
      );
      outgoing.once('error', failed);
      outgoing.end(body);
    });
  return {
    send,
    close() {
      http.destroy();
      https.destroy();
    },
  };
}

/** Status and headers of an answer; its body is the transport's `text`. */
function responseOf(incoming: IncomingMessage): Response {
  const headers = new Headers();
  const raw = incoming.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2)
    headers.append(raw[i] as string, raw[i + 1] as string);
  const status = incoming.statusCode ?? 0;
  return new Response(null, { status, statusText: incoming.statusMessage ?? '', headers });
}
