/**
 * The MCP server of `institution-api mcp`, on the official SDK's `Server`
 * (`@modelcontextprotocol/server`, which speaks protocol 2026-07-28 and the 2025 revisions):
 * `tools/list` answers the tools derived from the spec (tool-definitions.ts), `tools/call` runs
 * one (tool-calls.ts) with the request's cancellation signal and, when the client asked,
 * progress notifications; `resources/list` and `resources/read` offer the spec and the docs for
 * agents (resources.ts). The SDK's `Server` rather than its `McpServer`: these tools' schemas
 * are JSON Schema read from the spec at start, listed as they are and checked against the spec
 * by the one spec toolkit, not by a schema library of the SDK's.
 *
 * A new instance serves each HTTP request or each stdio connection (the SDK's factories).
 *
 * @module
 */
import { createRequire } from 'node:module';
import {
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  Server,
  type Tool,
} from '@modelcontextprotocol/server';
import type { DocResource } from './resources.js';
import type { ToolCall } from './tool-calls.js';
import type { OperationTool } from './tool-definitions.js';

/** This package's version, the server's in `initialize` (src/mcp and dist/mcp alike). */
const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

/** What the server offers and how it calls. */
export interface McpServerOptions {
  tools: readonly OperationTool[];
  call: ToolCall;
  resources: readonly DocResource[];
  /** The spec's `info.title`, the server's title. */
  title: string;
  /** What the server tells a client to tell its model (`instructions`). */
  instructions: string;
}

/** A factory of servers; each serves one HTTP request or one stdio connection. */
export function mcpServerFactory(options: McpServerOptions): () => Server {
  const { tools, call, resources, title, instructions } = options;
  // The SDK's `Tool` types schemas as JSON values; these are JSON Schema objects read from JSON.
  const listed = tools.map(({ tool }) => tool) as unknown as Tool[];
  const names = new Set<string>(listed.map((tool) => tool.name));
  const byUri = new Map(resources.map((entry) => [entry.resource.uri, entry]));
  const resourceList = resources.map(({ resource }) => resource);
  return () => {
    const server = new Server(
      { name: 'institution-api', title, version },
      { capabilities: { tools: {}, resources: {} }, instructions },
    );
    server.setRequestHandler('tools/list', () => ({ tools: listed }));
    server.setRequestHandler('tools/call', ({ params }, ctx) => {
      // An unknown tool is a protocol error (MCP: "Error Handling"), not a result.
      if (!names.has(params.name)) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Unknown tool: ${params.name} (the tools are ${[...names].join(', ')})`,
        );
      }
      const token = ctx.mcpReq._meta?.progressToken;
      return call(params.name, params.arguments, {
        signal: ctx.mcpReq.signal,
        ...(token !== undefined && {
          progress: (progress, total, message) =>
            ctx.mcpReq.notify({
              method: 'notifications/progress',
              params: { progressToken: token, progress, total, message },
            }),
        }),
      });
    });
    server.setRequestHandler('resources/list', () => ({ resources: resourceList }));
    server.setRequestHandler('resources/read', ({ params }) => {
      const found = byUri.get(params.uri);
      if (found === undefined) throw new ResourceNotFoundError(params.uri);
      const { uri, mimeType } = found.resource;
      return { contents: [{ uri, ...(mimeType && { mimeType }), text: found.text }] };
    });
    return server;
  };
}
