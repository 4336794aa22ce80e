/**
 * `institution-api mcp --http`: the MCP server over Streamable HTTP at `/mcp` (MCP: "Transports"),
 * on a `node:http` server of its own. It acts with the institution's keys, so it answers only
 * requests addressed to it (request-addressee.ts, as the sign-proxy): a `Host` other than its
 * loopback names (or a configured one) gets `421`, a page of another origin `403`, before any MCP
 * message is read (DNS rebinding: MCP's "Security Warning" of the transport).
 *
 * Stateless (the SDK's `sessionIdGenerator: undefined`): each `POST /mcp` gets a server and a
 * transport of its own, and its answer as one JSON body (`enableJsonResponse`), so no session or
 * stream outlives a request and nothing is kept in memory between requests. `GET` (a stream of
 * the server's own messages, which this server never sends) and `DELETE` (ending a session,
 * which it has none of) answer `405`, as the transport allows. It stops as the toolkit's servers
 * do: no new connection, the requests in flight finished within the drain, the rest cut
 * (`@institution-api/runtime/server-stop`).
 *
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { drainable } from '@institution-api/runtime/server-stop';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { type Addressed, type AddressedRequest, addresseeCheck } from '../request-addressee.js';

/** The MCP endpoint's path. */
export const mcpPath = '/mcp';

/** How to listen. */
export interface McpHttpOptions {
  /** A new MCP server for each request, with the tools and their calls. */
  createServer: () => Server;
  /** Address to listen on: 127.0.0.1 unless given. */
  host?: string;
  /** Port; 0 (the default) picks a free one. */
  port?: number;
  /** Further names it answers to (`--allow-host`), as the sign-proxy's. */
  allowHosts?: readonly string[];
  /** Origins of web pages that may call it (`--allow-origin`). */
  allowOrigins?: readonly string[];
  /** Told of each refused request in one line. */
  log?: (line: string) => void;
}

/** A listening MCP endpoint. */
export interface McpHttp {
  /** `http://HOST:PORT/mcp`. */
  url: string;
  /**
   * Stops accepting, lets the requests in flight finish, and cuts what is left after `drainMs`;
   * resolves once every connection has closed.
   */
  close(drainMs: number): Promise<void>;
}

/** Starts listening; rejects when it cannot (the port in use, an unknown address). */
export async function startMcpHttp(options: McpHttpOptions): Promise<McpHttp> {
  const { host = '127.0.0.1', port = 0, log = () => {} } = options;
  // Set once it listens (its port may be any free one), before any request arrives; kept after
  // it stops listening, when requests still arrive on open connections.
  let addressed: (request: AddressedRequest) => Addressed = () => {
    throw new Error('a request before the server listens');
  };
  const server = createServer((incoming, outgoing) => {
    const addressee = addressed(incoming);
    if (addressee.refusal) {
      const { status, detail, refused } = addressee.refusal;
      log(`${incoming.method} ${incoming.url} -> ${status} (refused: ${refused})`);
      return sendError(outgoing, status, detail);
    }
    // The origin-form target: an absolute-form one names this server (checked just above).
    incoming.url = addressee.target;
    if (new URL(addressee.target, 'http://mcp.invalid').pathname !== mcpPath) {
      return sendError(outgoing, 404, `Not found: the MCP endpoint is ${mcpPath}.`);
    }
    if (incoming.method !== 'POST') {
      outgoing.setHeader('Allow', 'POST');
      return sendError(
        outgoing,
        405,
        'Method not allowed: this server is stateless and sends no messages of its own; POST each message.',
      );
    }
    serveOne(options.createServer(), incoming, outgoing).catch((error: unknown) => {
      log(`POST ${mcpPath} -> failed (${error instanceof Error ? error.message : String(error)})`);
      if (!outgoing.headersSent) sendError(outgoing, 500, 'Internal error.');
      else outgoing.destroy();
    });
  });
  const drain = drainable(server);
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
    close: (drainMs) =>
      drain.drain(drainMs, () => log(`cutting the requests still open after ${drainMs} ms`)),
  };
}

/** One MCP message (or batch) on a server and a transport of its own, closed with its answer. */
async function serveOne(
  server: Server,
  incoming: IncomingMessage,
  outgoing: ServerResponse,
): Promise<void> {
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  outgoing.once('close', () => {
    transport.close().catch(() => {});
    server.close().catch(() => {});
  });
  await server.connect(transport);
  await transport.handleRequest(incoming, outgoing);
}

/** A JSON-RPC error answer without an id, as the SDK's transport writes its own. */
function sendError(outgoing: ServerResponse, status: number, message: string): void {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });
  outgoing.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
  });
  outgoing.end(body);
}
