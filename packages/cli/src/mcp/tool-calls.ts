/**
 * What a call of a tool of `institution-api mcp` does: the operation through the users client,
 * which signs it both ways (the seed's `Authorization` and an RFC 9421 message signature, a new
 * nonce per attempt), bounds each attempt and retries what is safe; and the answer as a tool
 * result. A success is `structuredContent` (the status, the spec's words for it, the user in one
 * shape) and the same as JSON text; a problem of the service, a network failure or a timeout is a
 * tool error (`isError`) whose text says what happened and carries the problem's status, title,
 * detail and field errors, so that a model can correct its arguments. A call never throws: no
 * argument a model sends ends the process.
 *
 * @module
 */

import type {
  CallOptions,
  UserInput,
  UsersClient,
  UsersClientResult,
} from '@institution-api/client';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { failureMessage } from '../cli-io.js';
import type { OperationTool, ToolName } from './tool-definitions.js';

/** Calls one tool with a model's arguments. */
export type ToolCall = (name: string, args: unknown) => Promise<CallToolResult>;

/** How to make the calls. */
export interface ToolCallsOptions {
  /** The client that signs and sends: made from the CLI's keys. */
  client: UsersClient;
  /** The service's address (INSTITUTION_API_URL), for the words of a failure. */
  baseUrl: string;
  /** The tools, as derived from the spec. */
  tools: readonly OperationTool[];
  /** Told of each call in one line: the tool, the status or failure, the time (never a body). */
  log: (line: string) => void;
  /** Ends the calls in flight (the server stops); each then answers an `aborted` tool error. */
  signal?: AbortSignal;
}

/** What a tool's call sends: the body and the path's parameters, taken apart from the arguments. */
type Send = (
  client: UsersClient,
  path: Record<string, string>,
  body: UserInput,
  options: CallOptions,
) => Promise<UsersClientResult<{ user: unknown }>>;

/** Each tool's operation on the client. */
const sends: Record<ToolName, Send> = {
  createUser: (client, _path, body, options) => client.createUser(body, options),
  updateUser: (client, path, body, options) => client.updateUser(path.id ?? '', body, options),
};

/**
 * The tool calls of the server. Arguments that are not an object, or a path parameter that is not
 * a string, are tool errors too (the model sees them and can correct itself).
 */
export function toolCalls({ client, baseUrl, tools, log, signal }: ToolCallsOptions): ToolCall {
  const byName = new Map(tools.map((tool) => [tool.tool.name as string, tool]));
  return async (name, args) => {
    const tool = byName.get(name);
    // The server answers an unknown name itself (a protocol error); this is a programming error.
    if (tool === undefined) throw new Error(`No tool ${name}.`);
    const given = args ?? {};
    if (typeof given !== 'object' || Array.isArray(given)) {
      return toolError(`${name} takes an object of arguments: the request body's fields.`);
    }
    const { path, body, wrong } = split(tool, given as Record<string, unknown>);
    if (wrong !== undefined) return toolError(`${name}: ${wrong}`);
    const started = performance.now();
    const result = await sends[tool.tool.name](client, path, body, signal ? { signal } : {});
    const ms = Math.round(performance.now() - started);
    const requestId = result.response?.headers.get('x-request-id');
    const timing = `${ms} ms${requestId ? `, request ${requestId}` : ''}`;
    if (result.data !== undefined) {
      const status = result.response.status;
      log(`${name} -> ${status} (${timing})`);
      const structured = {
        status,
        message: tool.answers[status] ?? '',
        user: result.data.user,
      };
      return {
        structuredContent: structured,
        content: [{ type: 'text', text: JSON.stringify(structured, null, 2) }],
      };
    }
    const { error } = result;
    if (error.kind === 'http') {
      const { kind: _kind, ...problem } = error;
      log(`${name} -> ${problem.status} ${problem.title} (${timing})`);
      const detail = typeof problem.detail === 'string' ? ` ${problem.detail}` : '';
      return toolError(
        `${name} failed: the service answered ${problem.status} (${problem.title}).${detail}`,
        { problem },
      );
    }
    const target = `${baseUrl.replace(/\/+$/, '')}${pathOf(tool, path)}`;
    const words = failureMessage(error, { target, baseUrl, sentIncome: undefined });
    log(`${name} -> no answer: ${words.split('\n', 1)[0]?.replace(/\.$/, '')} (${timing})`);
    return toolError(`${name} failed: ${words}`, {
      failure: { kind: error.kind, message: error.message },
    });
  };
}

/**
 * The arguments apart: the path's parameters (each a non-empty string) and the body, the rest.
 * The body is sent as given; the service checks it and names what is wrong.
 */
function split(
  tool: OperationTool,
  args: Record<string, unknown>,
): { path: Record<string, string>; body: UserInput; wrong?: string } {
  const path: Record<string, string> = {};
  const body: Record<string, unknown> = { ...args };
  for (const name of tool.pathParameters) {
    const value = body[name];
    delete body[name];
    if (typeof value !== 'string' || value === '') {
      return {
        path,
        body: body as unknown as UserInput,
        wrong: `the argument ${JSON.stringify(name)} is required: the user's id (a string), as createUser answered it.`,
      };
    }
    path[name] = value;
  }
  return { path, body: body as unknown as UserInput };
}

/** The operation's path with its parameters in, percent-encoded as the client sends them. */
function pathOf(tool: OperationTool, path: Record<string, string>): string {
  return tool.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
    encodeURIComponent(path[name] ?? ''),
  );
}

/** A tool error: a sentence, then, when there is one, the details as JSON. */
function toolError(sentence: string, details?: Record<string, unknown>): CallToolResult {
  return {
    isError: true,
    content: [
      { type: 'text', text: sentence },
      ...(details ? [{ type: 'text' as const, text: JSON.stringify(details, null, 2) }] : []),
    ],
  };
}
