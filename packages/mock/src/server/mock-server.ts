/**
 * The mock over HTTP, for clients in other languages: a `node:http` server whose every request is
 * answered through MSW (`getResponse`) by the mock service's handler, the one `createMockHandlers`
 * gives (`serviceHandler`).
 *
 * @module
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { maxBodyBytes, problemKinds } from '@institution-api/runtime/http';
import { defaultShutdownDrainMs, drainable } from '@institution-api/runtime/server-stop';
import { routedTarget, type TargetUri } from '@institution-api/signing';
import { diagnoseSignature } from '@institution-api/signing/node';
import { problemAnswer } from '../service/answers.js';
import {
  createMockService,
  type MockService,
  type MockServiceOptions,
  type RoutedRequest,
} from '../service/mock-service.js';

/** Options of {@link startMockServer}. */
export interface MockServerOptions extends Omit<MockServiceOptions, 'basePath'> {
  /** The port, 0 for any free one; 4010 by default (Prism's). */
  port?: number;
  /** The address to listen on; 127.0.0.1 by default (this machine only). */
  host?: string;
  /**
   * The origin clients call the mock at (`https://mock.example.com`), as the reference server's
   * PUBLIC_ORIGIN: a message signature's `@scheme` and `@authority` are its own; none by default.
   */
  publicOrigin?: string;
  /**
   * How long {@link MockServer.close} lets requests in flight finish before it cuts their
   * connections: the reference server's `SHUTDOWN_DRAIN_MS`, 10,000 by default.
   */
  shutdownDrainMs?: number;
}

/** A listening mock server. */
export interface MockServer {
  /** `http://host:port` */
  url: string;
  service: MockService;
  server: Server;
  /** Resolves once MSW and the validators are loaded (the first answer waits for it too). */
  ready(): Promise<void>;
  /**
   * Stops as the reference server does on SIGTERM: stops accepting connections, closes idle ones,
   * lets requests in flight finish (answered with `Connection: close`) and, after
   * `shutdownDrainMs`, cuts the connections left; resolves once every connection has closed.
   */
  close(): Promise<void>;
}

/**
 * Starts the mock on `host:port`; resolves once it listens. MSW and the spec's validators load
 * right after, in the background (most of a cold start: MSW's modules, Ajv compiling the spec);
 * a request that arrives before they have waits for them.
 */
export async function startMockServer(options: MockServerOptions): Promise<MockServer> {
  const service = createMockService({ diagnose: diagnoseSignature, ...options });
  const host = options.host ?? '127.0.0.1';
  let loading:
    | Promise<(request: Request, routed: RoutedRequest) => Promise<Response | undefined>>
    | undefined;
  const answer = () => {
    loading ??= (async () => {
      const [{ getResponse }, { serviceHandler }] = await Promise.all([
        import('msw'),
        import('../msw/handlers.js'),
      ]);
      await service.warm();
      // A handler per request: it routes by that request's target, which its URL cannot carry.
      return (request: Request, routed: RoutedRequest) =>
        getResponse([serviceHandler(service, '*', { routed })], request);
    })();
    return loading;
  };
  /**
   * The answer to a request whose body was read: routed as the reference server routes it
   * (http/request-target.ts there, the same `routedTarget`), so with the same 400s, whatever
   * Host says.
   */
  const respond = async (req: IncomingMessage, body: Uint8Array<ArrayBuffer>) => {
    const routed = routedTarget({
      method: req.method ?? 'GET',
      target: req.url ?? '/',
      host: req.headersDistinct.host,
      scheme: 'http',
      hostRequired: req.httpVersion !== '1.0',
      publicOrigin: options.publicOrigin,
      connection: req.socket,
    });
    if (routed.refused) {
      return problemAnswer(problemKinds.malformedRequest, routed.detail, req.url ?? '/');
    }
    const handle = await answer();
    const response = await handle(toRequest(req, routed.target, body), routed);
    return response ?? new Response(null, { status: 404 });
  };
  // An HTTP/1.1 request without Host is answered by `respond`, as the reference server answers it.
  const server = createServer({ requireHostHeader: false }, async (req, res) => {
    try {
      const response = await respond(req, await readBody(req));
      const answerBody = new Uint8Array(await response.arrayBuffer());
      res.statusCode = response.status;
      response.headers.forEach((value, name) => {
        res.setHeader(name, value);
      });
      res.setHeader('content-length', answerBody.length);
      res.end(answerBody);
    } catch {
      // A request the Fetch API cannot represent (a malformed header value): the caller's.
      res.statusCode = 400;
      res.setHeader('content-type', 'application/problem+json; charset=utf-8');
      res.end(
        JSON.stringify({
          type: 'urn:institution-api:problem:malformed-request',
          title: 'Malformed request',
          status: 400,
          detail: 'The request could not be read.',
        }),
      );
    }
  });
  server.keepAliveTimeout = 5_000;
  const requests = drainable(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 4010, host, () => resolve());
  });
  setImmediate(() => void answer());
  const { port } = server.address() as AddressInfo;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}`,
    service,
    server,
    ready: async () => {
      await answer();
    },
    close: () => requests.drain(options.shutdownDrainMs ?? defaultShutdownDrainMs),
  };
}

/** The body, read up to one byte past the limit (enough for the mock to answer `413`). */
async function readBody(req: IncomingMessage) {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    if (length <= maxBodyBytes) chunks.push(chunk);
    length += chunk.length;
  }
  return Buffer.concat(chunks).subarray(0, maxBodyBytes + 1);
}

/**
 * The request as a Fetch `Request`: its target URI (which the service routes by as `target`
 * says, since a `Request`'s URL normalizes the path), its headers, and its body.
 */
function toRequest(
  req: IncomingMessage,
  target: TargetUri,
  body: Uint8Array<ArrayBuffer>,
): Request {
  const headers = new Headers();
  for (let index = 0; index < req.rawHeaders.length; index += 2) {
    headers.append(req.rawHeaders[index] as string, req.rawHeaders[index + 1] as string);
  }
  const method = req.method ?? 'GET';
  const hasBody = body.length > 0 && method !== 'GET' && method !== 'HEAD';
  return new Request(target.href, {
    method,
    headers,
    ...(hasBody ? { body } : {}),
  });
}
