/**
 * `mcp --http` for clients of the 2025 revisions (an `initialize` handshake): each such client
 * gets a session of its own (`Mcp-Session-Id`, the SDK's `WebStandardStreamableHTTPServerTransport`
 * with a session id generator), so that its later messages reach the same server instance, and
 * in particular its `notifications/cancelled`, which the SDK turns into the abort of the
 * request's signal (MCP 2025-11-25: "Cancellation"). A stateless server would hand that
 * notification to a new instance that knows no such request, and the call would go on.
 *
 * The sessions live in this process (one process serves one user's agents); they are bounded in
 * number (the least recently used one is closed for a new one) and closed after being idle, so
 * an agent that never says goodbye (`DELETE`) leaves nothing behind for long. A 2025 message
 * without a session (a client that skips `initialize`) is served statelessly, by the SDK's
 * `legacyStatelessFallback`.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import {
  isInitializeRequest,
  legacyStatelessFallback,
  type McpServerFactory,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';

/** How many sessions at most, and how long one may stay idle. */
export interface LegacySessionLimits {
  maxSessions: number;
  idleMs: number;
}

export const defaultLegacySessionLimits: LegacySessionLimits = {
  maxSessions: 64,
  idleMs: 30 * 60_000,
};

/** Serves 2025-era requests (a web `Request` in, a `Response` out). */
export interface LegacySessions {
  fetch(request: Request, options?: { parsedBody?: unknown }): Promise<Response>;
  /** How many sessions are open. */
  readonly size: number;
  /** Closes every session (and its server, which aborts what it still runs). */
  close(): Promise<void>;
}

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  lastSeen: number;
}

/** The sessions of one `mcp --http`. */
export function legacySessions(
  createServer: McpServerFactory,
  limits: LegacySessionLimits = defaultLegacySessionLimits,
  onerror: (error: Error) => void = () => {},
): LegacySessions {
  const sessions = new Map<string, Session>();
  const stateless = legacyStatelessFallback(createServer, onerror);
  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const session of sessions.values()) {
        if (now - session.lastSeen > limits.idleMs) void session.transport.close();
      }
    },
    Math.min(limits.idleMs, 60_000),
  );
  sweep.unref();

  async function open(request: Request, parsedBody: unknown): Promise<Response> {
    if (sessions.size >= limits.maxSessions) {
      const oldest = [...sessions.values()].sort((a, b) => a.lastSeen - b.lastSeen)[0];
      await oldest?.transport.close();
    }
    const transport: WebStandardStreamableHTTPServerTransport =
      new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (id) => {
          sessions.set(id, { transport, lastSeen: Date.now() });
        },
        onsessionclosed: (id) => {
          sessions.delete(id);
        },
      });
    const server = await createServer({ era: 'legacy', requestInfo: request });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
      void server.close().catch(() => {});
    };
    await server.connect(transport);
    return transport.handleRequest(request, { parsedBody });
  }

  return {
    get size() {
      return sessions.size;
    },
    async fetch(request, { parsedBody } = {}) {
      const id = request.headers.get('mcp-session-id');
      if (id !== null) {
        const session = sessions.get(id);
        if (session === undefined) {
          return Response.json(
            {
              jsonrpc: '2.0',
              error: { code: -32001, message: 'Session not found: initialize again.' },
              id: null,
            },
            { status: 404 },
          );
        }
        session.lastSeen = Date.now();
        return session.transport.handleRequest(request, { parsedBody });
      }
      if (request.method === 'POST' && isInitializeRequest(parsedBody)) {
        return open(request, parsedBody);
      }
      return stateless(request, { parsedBody });
    },
    async close() {
      clearInterval(sweep);
      await Promise.all([...sessions.values()].map(({ transport }) => transport.close()));
    },
  };
}
