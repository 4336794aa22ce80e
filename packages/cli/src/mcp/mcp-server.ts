/**
 * The MCP server of `institution-api mcp`, on the official SDK's `Server`: `tools/list` answers
 * the tools derived from the spec (tool-definitions.ts), `tools/call` runs one (tool-calls.ts).
 * The SDK's `Server` rather than its `McpServer`: `McpServer.registerTool` takes Zod schemas, and
 * these tools' schemas are JSON Schema read from the spec at start, listed as they are.
 *
 * @module
 */
import { createRequire } from 'node:module';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import type { ToolCall } from './tool-calls.js';
import type { OperationTool } from './tool-definitions.js';

/** This package's version, the server's in `initialize` (src/mcp and dist/mcp alike). */
const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

/** What the server offers and how it calls. */
export interface McpServerOptions {
  tools: readonly OperationTool[];
  call: ToolCall;
  /** The spec's `info.title`, the server's title. */
  title: string;
  /** What the server tells a client to tell its model (`instructions`). */
  instructions: string;
}

/** One MCP server; connect it to one transport (stdio, or one HTTP request). */
export function createMcpServer({ tools, call, title, instructions }: McpServerOptions): Server {
  const server = new Server(
    { name: 'institution-api', title, version },
    { capabilities: { tools: {} }, instructions },
  );
  const listed = tools.map(({ tool }) => tool);
  const names = new Set<string>(listed.map((tool) => tool.name));
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));
  server.setRequestHandler(CallToolRequestSchema, ({ params }) => {
    // An unknown tool is a protocol error (MCP: "Error Handling"), not a result.
    if (!names.has(params.name)) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${params.name}`);
    }
    return call(params.name, params.arguments);
  });
  return server;
}
