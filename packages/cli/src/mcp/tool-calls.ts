/**
 * What a call of a tool of `institution-api mcp` does: its arguments checked against the spec
 * (tool-arguments.ts), nothing signed when they break a rule; then the operation through the
 * users client, which signs it both ways (the seed's `Authorization` and an RFC 9421 message
 * signature, a new nonce per attempt), bounds each attempt and retries what is safe; and the
 * answer as a tool result. A success is `structuredContent` (the status, the spec's words for
 * it, the user in one shape) and the same as JSON text; a broken rule, a problem of the service,
 * a network failure or a timeout is a tool error (`isError`) whose text says what happened and
 * carries the field errors or the problem's status, title, detail and field errors, so that a
 * model can correct its arguments. A call never throws: no argument a model sends ends the
 * process.
 *
 * The call ends, with its attempt in flight and every retry, as soon as the client cancels it
 * (the request's signal: `notifications/cancelled`, or its HTTP stream closed) or the server
 * stops; while it retries, a client that asked for progress is told of each failed attempt.
 *
 * @module
 */

import type {
  CallOptions,
  RetryNotice,
  UsersClient,
  UsersClientResult,
} from '@institution-api/client';
import type { FieldError, UserInput } from '@institution-api/types';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { failureMessage } from '../cli-io.js';
import type { ArgumentCheck } from './tool-arguments.js';
import type { OperationTool, ToolName } from './tool-definitions.js';

/** What a call is given besides its arguments, by the MCP request it answers. */
export interface CallContext {
  /** Aborted when the client cancels the request (or goes away). */
  signal: AbortSignal;
  /** Sends a progress notification; present when the client asked for progress. */
  progress?: (progress: number, total: number, message: string) => Promise<void>;
}

/** Calls one tool with a client's arguments (an object; the SDK refuses anything else). */
export type ToolCall = (
  name: string,
  args: Record<string, unknown> | undefined,
  context: CallContext,
) => Promise<CallToolResult>;

/** How many attempts a call may make and how long each may take (the client's settings). */
export interface CallBudget {
  attempts: number;
  timeoutMs: number;
}

/** How to make the calls. */
export interface ToolCallsOptions {
  /** The client that signs and sends: made from the CLI's keys. */
  client: UsersClient;
  /** The service's address (INSTITUTION_API_URL), for the words of a failure. */
  baseUrl: string;
  /** The tools, as derived from the spec. */
  tools: readonly OperationTool[];
  /** Checks a tool's arguments against the spec (tool-arguments.ts). */
  check: ArgumentCheck;
  budget: CallBudget;
  /** Told of each call in one line: the tool, the status or failure, the time (never a body). */
  log: (line: string) => void;
  /** Aborted when the server stops: each call in flight then answers a tool error saying so. */
  stopping: AbortSignal;
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

/** The tool calls of the server. */
export function toolCalls(options: ToolCallsOptions): ToolCall {
  const { client, tools, check, log, stopping } = options;
  const byName = new Map(tools.map((tool) => [tool.tool.name as string, tool]));
  return async (name, args, context) => {
    const tool = byName.get(name);
    // The server answers an unknown name itself (a protocol error); this is a programming error.
    if (tool === undefined) throw new Error(`No tool ${name}.`);
    const checked = check(tool, args ?? {});
    if (checked.errors) {
      log(`${name} -> refused here, nothing sent: ${checked.errors.map((e) => e.path).join(', ')}`);
      return brokenRules(name, checked.errors);
    }
    const signal = AbortSignal.any([context.signal, stopping]);
    const started = performance.now();
    let attempts = 1;
    const onRetry = (notice: RetryNotice) => {
      attempts = notice.attempt + 1;
      const words = `attempt ${notice.attempt} of ${notice.attempts} ${retryReason(notice)}; attempt ${attempts} in ${seconds(notice.delayMs)}`;
      log(`${name}: ${words}`);
      context.progress?.(notice.attempt, notice.attempts, words).catch(() => {});
    };
    const result = await sends[tool.tool.name](client, checked.path, checked.body, {
      signal,
      onRetry,
    });
    const ms = performance.now() - started;
    const requestId = result.response?.headers.get('x-request-id');
    const timing = `${Math.round(ms)} ms${requestId ? `, request ${requestId}` : ''}`;
    if (result.data !== undefined) {
      const status = result.response.status;
      log(`${name} -> ${status} (${timing})`);
      const structured = { status, message: tool.answers[status] ?? '', user: result.data.user };
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
    const sent = `${attempts} ${attempts === 1 ? 'attempt' : 'attempts'} in ${seconds(ms)}`;
    if (error.kind === 'aborted') {
      const why = stopping.aborted
        ? 'the MCP server is stopping (SIGTERM or Ctrl-C)'
        : 'the client cancelled it';
      log(`${name} -> ended: ${why}, ${sent}; no further attempt`);
      return toolError(
        `${name} did not complete: ${why} after ${sent}. No further attempt was sent; whether the last one reached the service is unknown.`,
        { failure: { kind: error.kind, message: error.message } },
      );
    }
    const target = `${options.baseUrl.replace(/\/+$/, '')}${pathOf(tool, checked.path)}`;
    const { budget } = options;
    const words =
      error.kind === 'timeout'
        ? `no complete answer from ${target} after ${sent} (each attempt is given ${seconds(budget.timeoutMs)}, at most ${budget.attempts} attempts).\n${failureMessage(error, { target, baseUrl: options.baseUrl, sentIncome: undefined }).split('\n').slice(1).join('\n')}`
        : failureMessage(error, { target, baseUrl: options.baseUrl, sentIncome: undefined });
    log(`${name} -> no answer: ${words.split('\n', 1)[0]?.replace(/\.$/, '')} (${timing})`);
    return toolError(`${name} failed: ${words}`, {
      failure: { kind: error.kind, message: error.message },
    });
  };
}

/** Why an attempt is retried, in a few words. */
function retryReason({ after }: RetryNotice): string {
  return 'status' in after ? `answered ${after.status}` : `failed (${after.message})`;
}

/** Milliseconds as seconds, to a tenth. */
function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** The tool error for arguments that break the spec's rules: nothing was signed or sent. */
function brokenRules(name: string, errors: FieldError[]): CallToolResult {
  return toolError(
    `${name}: the arguments break the spec's rules, so nothing was sent: ${errors.map((error) => error.message).join('; ')}.`,
    { errors },
  );
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
