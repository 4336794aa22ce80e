/**
 * `institution-api mcp --http`: the MCP server over Streamable HTTP at `/mcp` (MCP:
 * "Transports"), on a `node:http` server of its own. It acts with the institution's keys, so
 * before any MCP message is read a request must be:
 *
 * 1. addressed to it (request-addressee.ts, as the sign-proxy): a `Host` other than its
 *    loopback names (or a configured one) gets `421`, a page of another origin `403` (DNS
 *    rebinding: MCP's "Security Warning" of the transport);
 * 2. at `/mcp` (`404` otherwise);
 * 3. from a holder of its bearer token (bearer-token.ts): `401` with `WWW-Authenticate: Bearer`
 *    without it or with another (RFC 6750 §3), so no other local process or OS user can use it;
 * 4. one JSON-RPC message (jsonrpc-check.ts): `400` with `-32700` or `-32600` otherwise.
 *
 * Each refusal is logged in one line, never with the token. Then the SDK serves it: a request of
 * protocol 2026-07-28 (stateless: its revision in `_meta` and the `MCP-Protocol-Version` header)
 * by `createMcpHandler`, a new server instance per request, which the client cancels by closing
 * the request's stream; a 2025 client (`initialize`) in a session of its own (legacy-sessions.ts),
 * which it cancels by `notifications/cancelled`. The SDK's `isLegacyRequest` tells them apart.
 *
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { drainable } from '@institution-api/runtime/server-stop';
import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  createMcpHandler,
  isLegacyRequest,
  type McpServerFactory,
} from '@modelcontextprotocol/server';
import { type Addressed, type AddressedRequest, addresseeCheck } from '../request-addressee.js';
import type { BearerToken } from './bearer-token.js';
import { checkMessage, errorResponse, type Unreadable } from './jsonrpc-check.js';
import { type LegacySessionLimits, legacySessions } from './legacy-sessions.js';

/** The MCP endpoint's path. */
export const mcpPath = '/mcp';

/** The largest message body read (as the SDK's stdio buffer; the tools' arguments are small). */
export const maxBodyBytes = 4 * 1024 * 1024;

/** How to listen. */
export interface McpHttpOptions {
  /** A new MCP server for each request (2026-07-28) or each 2025 session. */
  createServer: McpServerFactory;
  /** The credential every request must carry. */
  token: BearerToken;
  /** Address to listen on: 127.0.0.1 unless given. */
  host?: string;
  /** Port; 0 (the default) picks a free one. */
  port?: number;
  /** Further names it answers to (`--allow-host`), as the sign-proxy's. */
  allowHosts?: readonly string[];
  /** Origins of web pages that may call it (`--allow-origin`). */
  allowOrigins?: readonly string[];
  /** Bounds of the 2025 clients' sessions. */
  sessions?: LegacySessionLimits;
  /** Told of each refused request in one line. */
  log?: (line: string) => void;
}

/** A listening MCP endpoint. */
export interface McpHttp {
  /** `http://HOST:PORT/mcp`. */
  url: string;
  /** Stops accepting connections; resolves once every one has closed (or was cut at `cutAfterMs`). */
  stopAccepting(cutAfterMs: number): Promise<void>;
  /** Closes the sessions and the handler (which aborts what they still run). */
  close(): Promise<void>;
}

/** Starts listening; rejects when it cannot (the port in use, an unknown address). */
export async function startMcpHttp(options: McpHttpOptions): Promise<McpHttp> {
  const { host = '127.0.0.1', port = 0, log = () => {}, token } = options;
  const onerror = (error: Error) => log(`${mcpPath}: ${error.message}`);
  const modern = createMcpHandler(options.createServer, { legacy: 'reject', onerror });
  const legacy = legacySessions(options.createServer, options.sessions, onerror);
  const serve = toNodeHandler(
    {
      fetch: async (request, { parsedBody } = {}) =>
        (await isLegacyRequest(request, parsedBody))
          ? legacy.fetch(request, { parsedBody })
          : modern.fetch(request, { parsedBody }),
    },
    { maxRequestBodySize: maxBodyBytes, onerror },
  );
  // Set once it listens (its port may be any free one), before any request arrives; kept after
  // it stops listening, when requests still arrive on open connections.
  let addressed: (request: AddressedRequest) => Addressed = () => {
    throw new Error('a request before the server listens');
  };
  const server = createServer((incoming, outgoing) => {
    const refuse = (status: number, why: string, message: string, headers = {}) => {
      log(`${incoming.method} ${mcpPath} -> ${status} (${why})`);
      sendError(outgoing, status, { code: -32000, message, id: null }, headers);
    };
    const addressee = addressed(incoming);
    if (addressee.refusal) {
      const { status, detail, refused } = addressee.refusal;
      log(`${incoming.method} ${incoming.url} -> ${status} (refused: ${refused})`);
      return sendError(outgoing, status, { code: -32000, message: detail, id: null });
    }
    // The origin-form target: an absolute-form one names this server (checked just above).
    incoming.url = addressee.target;
    if (new URL(addressee.target, 'http://mcp.invalid').pathname !== mcpPath) {
      return sendError(outgoing, 404, {
        code: -32000,
        message: `Not found: the MCP endpoint is ${mcpPath}.`,
        id: null,
      });
    }
    const credential = token.check(incoming.headers.authorization);
    if (credential !== 'valid') {
      const challenge =
        credential === 'missing'
          ? 'Bearer realm="institution-api mcp"'
          : 'Bearer realm="institution-api mcp", error="invalid_token"';
      return refuse(
        401,
        credential === 'missing' ? 'no bearer token' : 'not the bearer token',
        credential === 'missing'
          ? 'Unauthorized: send the token institution-api mcp --http printed (or was given) as "Authorization: Bearer <token>".'
          : "Unauthorized: the bearer token is not this server's.",
        { 'www-authenticate': challenge },
      );
    }
    if (incoming.method !== 'POST') {
      serve(incoming, outgoing).catch(onerror);
      return;
    }
    readMessage(incoming).then(
      (read) => {
        if ('tooLarge' in read) {
          return refuse(413, 'too large', `Payload too large: at most ${maxBodyBytes} bytes.`);
        }
        if ('unreadable' in read) {
          log(`POST ${mcpPath} -> 400 (${read.unreadable.code}: ${read.unreadable.message})`);
          return sendError(outgoing, 400, read.unreadable);
        }
        return serve(incoming, outgoing, read.message);
      },
      (error: Error) => {
        log(`POST ${mcpPath} -> failed (${error.message})`);
        outgoing.destroy();
      },
    );
  });
  const drain = drainable(server);
  // Once stopping, a connection whose answer has gone is closed at once: an answer streamed
  // (SSE) had its headers sent before the stop, without `Connection: close`, and its client
  // would otherwise hold the connection open, and the stop, for its keep-alive time.
  let stopping = false;
  server.on('request', (_incoming, outgoing: ServerResponse) => {
    outgoing.once('finish', () => {
      if (stopping) setImmediate(() => server.closeIdleConnections());
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  addressed = addresseeCheck({
    label: 'The MCP server',
    port: address.port,
    address: host,
    allowHosts: options.allowHosts,
    allowOrigins: options.allowOrigins,
  });
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}${mcpPath}`,
    stopAccepting: (cutAfterMs) => {
      stopping = true;
      return drain.drain(cutAfterMs, () =>
        log(`cutting the requests still open after ${cutAfterMs} ms`),
      );
    },
    close: async () => {
      await Promise.all([legacy.close(), modern.close()]);
    },
  };
}

/** The body of a POST, read whole (bounded) and checked as one JSON-RPC message. */
function readMessage(
  incoming: IncomingMessage,
): Promise<{ message: unknown } | { unreadable: Unreadable } | { tooLarge: true }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    incoming.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > maxBodyBytes) {
        incoming.removeAllListeners('data');
        incoming.resume();
        resolve({ tooLarge: true });
        return;
      }
      chunks.push(chunk);
    });
    incoming.once('end', () => {
      if (bytes > maxBodyBytes) return;
      const checked = checkMessage(Buffer.concat(chunks).toString('utf8'));
      resolve('unreadable' in checked ? checked : { message: checked.message });
    });
    incoming.once('error', reject);
  });
}

/** A JSON-RPC error answer, as the SDK's transport writes its own. */
function sendError(
  outgoing: ServerResponse,
  status: number,
  error: Unreadable | { code: number; message: string; id: null },
  headers: Record<string, string> = {},
): void {
  const body = JSON.stringify(errorResponse(error as Unreadable));
  outgoing.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
  });
  outgoing.end(body);
}
