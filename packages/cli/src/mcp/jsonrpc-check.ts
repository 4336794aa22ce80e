/**
 * One message as a client sent it (a line on stdio, a POST body over HTTP), checked before the
 * SDK reads it, so that what the SDK would drop in silence gets the answer JSON-RPC 2.0 §5.1
 * gives it: `-32700` for text that is not JSON, `-32600` for JSON that is not a request, a
 * notification or a response (no `"jsonrpc": "2.0"`, no `method`, a batch: MCP sends one message
 * at a time since 2025-06-18), and `-32602` for a `tools/call` whose `arguments` is not an object
 * (the SDK would answer with its schema's raw dump). The id is echoed when one can be read,
 * `null` otherwise. What passes is checked by the SDK's own JSON-RPC schema, so nothing is
 * accepted here that the SDK would not read.
 *
 * @module
 */
import { type JSONRPCMessage, parseJSONRPCMessage } from '@modelcontextprotocol/server';

/** JSON-RPC 2.0's codes for a message that cannot be read. */
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const INVALID_PARAMS = -32602;

/** A message that cannot be served, and the error response it gets. */
export interface Unreadable {
  code: typeof PARSE_ERROR | typeof INVALID_REQUEST | typeof INVALID_PARAMS;
  message: string;
  id: string | number | null;
}

/** The message, or why it cannot be read. */
export type Checked = { message: JSONRPCMessage } | { unreadable: Unreadable };

/** Checks the text of one message. */
export function checkMessage(text: string): Checked {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return unreadable(PARSE_ERROR, 'Parse error: the message is not JSON.', null);
  }
  return checkValue(value);
}

/** Checks one parsed message (an HTTP body the server has already parsed). */
export function checkValue(value: unknown): Checked {
  if (Array.isArray(value)) {
    return unreadable(
      INVALID_REQUEST,
      'Invalid Request: a batch (a JSON array); send one message at a time (MCP has no batches since 2025-06-18).',
      null,
    );
  }
  try {
    parseJSONRPCMessage(value);
  } catch {
    return unreadable(INVALID_REQUEST, `Invalid Request: ${whyNot(value)}`, idOf(value));
  }
  const { method, params, id } = value as { method?: unknown; params?: unknown; id?: unknown };
  const args = (params as { arguments?: unknown } | undefined)?.arguments;
  if (method === 'tools/call' && args !== undefined && !isObject(args)) {
    return unreadable(
      INVALID_PARAMS,
      'Invalid params: "arguments" of tools/call must be an object (the tool\'s fields by name).',
      isId(id) ? id : null,
    );
  }
  // The message as sent: the SDK's schema may drop keys it does not know.
  return { message: value as JSONRPCMessage };
}

/** The error response for an unreadable message. */
export function errorResponse({ code, message, id }: Unreadable): JSONRPCMessage {
  return { jsonrpc: '2.0', id, error: { code, message } } as unknown as JSONRPCMessage;
}

function unreadable(code: Unreadable['code'], message: string, id: Unreadable['id']): Checked {
  return { unreadable: { code, message, id } };
}

/** What is wrong with a JSON value that is not a JSON-RPC message, in the spec's words. */
function whyNot(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    return 'a message is a JSON object (a request, a notification or a response).';
  }
  const message = value as Record<string, unknown>;
  if (message.jsonrpc !== '2.0') return 'a message must have "jsonrpc": "2.0".';
  if ('method' in message && typeof message.method !== 'string') {
    return '"method" must be a string.';
  }
  if ('id' in message && !isId(message.id)) return '"id" must be a string or a number.';
  if (!('method' in message) && !('result' in message) && !('error' in message)) {
    return 'a message has a "method" (a request or a notification), or a "result" or an "error" (a response).';
  }
  return 'not a JSON-RPC 2.0 request, notification or response.';
}

function idOf(value: unknown): Unreadable['id'] {
  const id = (value as { id?: unknown } | null)?.id;
  return isId(id) ? id : null;
}

function isObject(value: unknown): boolean {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function isId(id: unknown): id is string | number {
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
}
