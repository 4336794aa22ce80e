/**
 * The HTTP server of `institution-api sign-proxy`: a local reverse proxy that signs each request
 * it receives and forwards it to the service, so any HTTP tool (Redocly Respect, Postman, Newman,
 * curl without openssl) can call the API, whose signature no fixed header can carry (spec:
 * "Signing requests"; the pattern of aws-sigv4-proxy).
 *
 * For each request it reads the body whole (the signatures cover its exact bytes, and the headers
 * precede the body), signs it both ways exactly as the client's signing middleware does:
 * `Authorization` (a request without a body, GET or HEAD, over the JSON-stringified query) and an
 * RFC 9421 message signature for the method and the URL it sends to, the target's, so that the
 * signature is good there only; it replaces any `Authorization`, `Signature-Input`, `Signature`
 * and `Content-Digest` the request carries, sends the same bytes to the target, and streams the answer back
 * unchanged: status, end-to-end headers and body bytes.
 *
 * It signs only what is addressed to it ({@link addresseeCheck}): a request whose `Host` (or
 * absolute-form target) is not one of its own names is answered `421`, one from a web page of
 * another origin or site (`Origin`, `Sec-Fetch-Site`) `403`, whatever its method, unsigned and
 * unforwarded, so that a page of any site cannot have
 * requests signed through it (DNS rebinding, cross-site requests). It sends to its target only:
 * the request's path is appended to the target's ({@link forwardedPath}), and a path that reads
 * as another host or climbs out of the target's path is answered `400`, unsigned and unforwarded.
 * A request it cannot forward is answered `502` with a problem naming the cause; the secret is
 * never in an answer or a log line.
 *
 * @module
 */
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { RequestSigning } from '@institution-api/client';
import { type Addressed, type AddressedRequest, addresseeCheck } from './request-addressee.js';
import { forwardedPath } from './request-target.js';
import { describeSystemError } from './system-errors.js';

/** The most body bytes the proxy holds to sign; the service itself accepts 64 KiB. */
export const maxBufferedBodyBytes = 1024 * 1024;

/** How long `close` waits for the requests in flight before cutting their connections. */
export const closeGraceMs = 30_000;

/** Media type of the proxy's own errors, as the service's (RFC 9457). */
const problemMediaType = 'application/problem+json';

/**
 * Headers that describe one connection, not the message (RFC 9110 §7.6.1), so they are
 * never forwarded in either direction; `host` is the target's; `content-length` is set from the
 * bytes sent.
 */
const hopByHop = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** How to start the proxy. */
export interface SigningProxyOptions {
  /**
   * The service's base URL (http or https): its scheme, host and port receive every request; its
   * path, if any (with or without a trailing slash), prefixes every request's path.
   */
  target: URL;
  /**
   * Signs each request: `authorize` over the body's bytes (or the query's JSON text), and,
   * unless turned off, `signMessage` over the method, the URL sent to and the body.
   */
  signing: RequestSigning;
  /** Address to listen on; 127.0.0.1 unless given. */
  host?: string;
  /** Port to listen on; 0 (the default) picks a free one. */
  port?: number;
  /**
   * Names it answers to besides `127.0.0.1`, `localhost`, `[::1]` and `host` at its port
   * (`--allow-host`): `name` at any port, or `name:port`.
   */
  allowHosts?: readonly string[];
  /** Origins of web pages that may call it besides its own (`--allow-origin`). */
  allowOrigins?: readonly string[];
  /** Told of each exchange, in one line without headers (never the secret). */
  log?: (line: string) => void;
}

/** A running proxy. */
export interface SigningProxy {
  /** `http://HOST:PORT`, as a client reaches it. */
  url: string;
  /** Stops accepting connections and resolves once the requests in flight are answered. */
  close(): Promise<void>;
}

/** Starts the proxy; rejects when it cannot listen (the port in use, an unknown host). */
export async function startSigningProxy(options: SigningProxyOptions): Promise<SigningProxy> {
  const { target, signing, host = '127.0.0.1', port = 0, log = () => {} } = options;
  const { authorize, signMessage } = signing;
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  let closing = false;
  // Known once it listens (its port may be any free one), before any request arrives.
  let addressed: ((request: AddressedRequest) => Addressed) | undefined;

  const inFlight = new Set<ServerResponse>();
  const server = createServer((incoming, outgoing) => {
    inFlight.add(outgoing);
    outgoing.once('close', () => inFlight.delete(outgoing));
    // Once closing, each answer ends its connection, so close() is not held by keep-alive.
    if (closing) outgoing.shouldKeepAlive = false;
    const what = `${incoming.method} ${incoming.url}`;
    addressed ??= addresseeCheck({
      label: 'The sign-proxy',
      port: (server.address() as AddressInfo).port,
      address: host,
      allowHosts: options.allowHosts,
      allowOrigins: options.allowOrigins,
    });
    const addressee = addressed(incoming);
    if (addressee.refusal) {
      // Not signed, not forwarded (Node discards the body it did not read).
      const { status, title, detail, refused } = addressee.refusal;
      sendProblem(outgoing, status, title, `${detail} Nothing was signed or forwarded.`);
      log(`${what} -> ${status} (not forwarded: ${refused})`);
      return;
    }
    const { path, refused } = forwardedPath(target.pathname, addressee.target);
    if (refused !== undefined) {
      // Not signed, not forwarded (Node discards the body it did not read).
      sendProblem(outgoing, 400, 'Bad request target', refused);
      log(`${what} -> 400 (not forwarded: ${refused})`);
      return;
    }
    readBody(incoming)
      .then(async (body) => {
        if (body === undefined) {
          sendProblem(outgoing, 413, 'Payload too large', tooLargeDetail);
          log(`${what} -> 413 (not forwarded: the body is over ${maxBufferedBodyBytes} bytes)`);
          return;
        }
        const headers = forwardedHeaders(incoming, body.length, signMessage !== undefined);
        headers.authorization = await authorize(signedMessage(incoming, body));
        if (signMessage !== undefined) {
          // For the URL the request is sent to, the target's: the signature is good there only.
          const fields = await signMessage({
            method: incoming.method ?? 'GET',
            url: `${target.protocol}//${target.host}${path}`,
            body: hasNoBody(incoming) ? undefined : body,
          });
          Object.assign(headers, fields);
        }
        // The target's scheme, host and port, with this path: nothing the caller sends changes
        // where the signed request goes.
        const forward = send(target, { method: incoming.method, headers, path }, (answer) => {
          outgoing.writeHead(
            answer.statusCode ?? 502,
            answer.statusMessage,
            endToEnd(answer.rawHeaders),
          );
          answer.pipe(outgoing);
          // An answer cut short upstream is cut short here too, never completed silently.
          answer.once('error', () => outgoing.destroy());
          answer.once('end', () => log(`${what} -> ${answer.statusCode}`));
        });
        forward.once('error', (error) => {
          const cause = describe(error);
          log(`${what} -> 502 (${cause})`);
          if (outgoing.headersSent) outgoing.destroy();
          else {
            sendProblem(
              outgoing,
              502,
              'Bad gateway',
              `The sign-proxy could not forward ${what} to ${target.origin}: ${cause}.`,
            );
          }
        });
        forward.end(body);
      })
      .catch((error: unknown) => {
        // The caller went away while sending, or signing failed: nothing was forwarded.
        if (!outgoing.headersSent && !outgoing.destroyed) {
          sendProblem(outgoing, 502, 'Bad gateway', `The sign-proxy could not sign ${what}.`);
        }
        log(`${what} -> not forwarded (${describe(error)})`);
      });
  });

  // CONNECT asks for a tunnel to a host the caller names (authority-form): refused, as an
  // absolute URL is, with an answer written on the socket (Node would just close it).
  server.on('connect', (incoming: IncomingMessage, socket: Duplex) => {
    socket.end(rawProblem(400, 'Bad Request', 'Bad request target', connectRefused));
    log(`CONNECT ${incoming.url} -> 400 (not forwarded: ${connectRefused})`);
  });
  // A request Node cannot parse (a request target that is neither a path nor a URL): the same
  // problem as any other refusal, instead of Node's bare 400.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || error.code === 'ECONNRESET') socket.destroy();
    else if (error.code === 'HPE_HEADER_OVERFLOW') {
      socket.end(
        rawProblem(431, 'Request Header Fields Too Large', 'Bad request', headersTooLarge),
      );
    } else socket.end(rawProblem(400, 'Bad Request', 'Bad request', unparsable));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}`,
    close: () => {
      closing = true;
      for (const outgoing of inFlight) endConnectionAfter(outgoing);
      return closeGracefully(server);
    },
  };
}

const connectRefused =
  'CONNECT (a tunnel to a host you name) is not supported; the sign-proxy forwards only to its own target: send the path alone, e.g. POST /api/v1/external/users.';

const unparsable =
  "The request is not HTTP/1.1 the sign-proxy can read; its request target must be a path starting with '/'.";

const headersTooLarge = 'The request headers are larger than the sign-proxy reads.';

const tooLargeDetail = `The sign-proxy holds at most ${maxBufferedBodyBytes} bytes of a body to sign it; the service accepts 64 KiB.`;

/** The body's bytes, or undefined when it is larger than {@link maxBufferedBodyBytes}. */
function readBody(incoming: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const onData = (chunk: Buffer) => {
      length += chunk.length;
      if (length <= maxBufferedBodyBytes) chunks.push(chunk);
      else {
        // Read and drop the rest, so the caller gets to read the 413.
        incoming.off('data', onData).resume();
        resolve(undefined);
      }
    };
    incoming.on('data', onData);
    incoming.once('end', () =>
      resolve(Buffer.concat(chunks, Math.min(length, maxBufferedBodyBytes))),
    );
    incoming.once('error', reject);
  });
}

/**
 * What is signed: the body's exact bytes, or, for a request that carries none by definition (GET,
 * HEAD), the JSON-stringified query object, as the signing middleware and the spec's `InstitutionSignature`
 * say (`{}` when there is none).
 */
function signedMessage(incoming: IncomingMessage, body: Buffer): Uint8Array | string {
  if (!hasNoBody(incoming)) return body;
  const query = new URL(incoming.url ?? '/', 'http://proxy.invalid').searchParams;
  return JSON.stringify(Object.fromEntries(query));
}

/** GET and HEAD carry no body by definition; they are signed over their query. */
function hasNoBody(incoming: IncomingMessage): boolean {
  return incoming.method === 'GET' || incoming.method === 'HEAD';
}

/** The fields of a message signature, replaced by the proxy's own when it signs one. */
const messageSignatureFields = new Set(['signature', 'signature-input', 'content-digest']);

/**
 * The request's end-to-end headers for the target, without its Authorization (and its message
 * signature's fields, when the proxy signs one).
 */
function forwardedHeaders(
  incoming: IncomingMessage,
  length: number,
  signsMessages: boolean,
): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (hopByHop.has(name) || name === 'host' || name === 'authorization') continue;
    if (signsMessages && messageSignatureFields.has(name)) continue;
    if (name === 'content-length') continue;
    headers[name] = value;
  }
  if (length > 0 || incoming.headers['content-length'] !== undefined) {
    headers['content-length'] = String(length);
  }
  return headers;
}

/** The answer's headers as received (names' case and repeats kept), without hop-by-hop ones. */
function endToEnd(rawHeaders: string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] ?? '';
    if (!hopByHop.has(name.toLowerCase())) kept.push(name, rawHeaders[i + 1] ?? '');
  }
  return kept;
}

/** The proxy's own problem (RFC 9457), `urn:institution-api:problem:sign-proxy`. */
function problem(status: number, title: string, detail: string): string {
  return JSON.stringify({ type: 'urn:institution-api:problem:sign-proxy', title, status, detail });
}

/** A whole answer carrying a problem, for a socket no `ServerResponse` writes to. */
function rawProblem(status: number, reason: string, title: string, detail: string): string {
  const body = problem(status, title, detail);
  return `HTTP/1.1 ${status} ${reason}\r\ncontent-type: ${problemMediaType}\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;
}

function sendProblem(outgoing: ServerResponse, status: number, title: string, detail: string) {
  const body = problem(status, title, detail);
  outgoing.writeHead(status, {
    'content-type': problemMediaType,
    'content-length': Buffer.byteLength(body),
  });
  outgoing.end(body);
}

/** An error's cause in words, without anything the request carried. */
function describe(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return describeSystemError(code);
  return error instanceof Error ? error.message : String(error);
}

/** Makes an answer in flight the last of its connection, so the connection ends with it. */
function endConnectionAfter(outgoing: ServerResponse): void {
  if (!outgoing.headersSent) outgoing.shouldKeepAlive = false;
  else {
    // Node detaches the socket from the answer when it finishes, so hold it first.
    const socket = outgoing.socket;
    outgoing.once('finish', () => socket?.end());
  }
}

/**
 * `server.close()` stops accepting and ends idle keep-alive connections; the answers in flight
 * end their connections as they finish ({@link endConnectionAfter}). After {@link closeGraceMs},
 * whatever is left is cut.
 */
function closeGracefully(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    const deadline = setTimeout(() => server.closeAllConnections(), closeGraceMs);
    deadline.unref();
    server.close((error) => {
      clearTimeout(deadline);
      if (error) reject(error);
      else resolve();
    });
    server.closeIdleConnections();
  });
}
