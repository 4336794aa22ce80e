/**
 * What a message must be before the SDK reads it (jsonrpc-check.ts): JSON (`-32700`), one
 * JSON-RPC 2.0 message (`-32600`), and a `tools/call` with object arguments (`-32602`), with the
 * id echoed when it can be read (JSON-RPC 2.0 §5.1).
 */
import { describe, expect, it } from 'vitest';
import { checkMessage } from '../../src/mcp/jsonrpc-check.js';

describe('checkMessage', () => {
  it.each([
    {
      given: 'text that is not JSON',
      text: '{"jsonrpc": "2.0",',
      want: { code: -32700, id: null },
    },
    {
      given: 'an empty object',
      text: '{}',
      want: { code: -32600, id: null, message: /"jsonrpc": "2.0"/ },
    },
    {
      given: 'no jsonrpc',
      text: '{"id":5,"method":"ping"}',
      want: { code: -32600, id: 5, message: /"jsonrpc": "2.0"/ },
    },
    {
      given: 'JSON-RPC 1.0',
      text: '{"jsonrpc":"1.0","id":"a","method":"ping"}',
      want: { code: -32600, id: 'a' },
    },
    {
      given: 'a method that is not a string',
      text: '{"jsonrpc":"2.0","id":1,"method":7}',
      want: { code: -32600, id: 1, message: /"method" must be a string/ },
    },
    {
      given: 'an id that is an object',
      text: '{"jsonrpc":"2.0","id":{},"method":"ping"}',
      want: { code: -32600, id: null, message: /"id" must be a string or a number/ },
    },
    {
      given: 'neither method nor result',
      text: '{"jsonrpc":"2.0","id":1}',
      want: { code: -32600, id: 1 },
    },
    {
      given: 'a batch',
      text: '[{"jsonrpc":"2.0","id":1,"method":"ping"}]',
      want: { code: -32600, id: null, message: /batch/ },
    },
    { given: 'a number', text: '42', want: { code: -32600, id: null } },
    {
      given: 'tools/call with a string for arguments',
      text: '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"createUser","arguments":"x"}}',
      want: { code: -32602, id: 3, message: /"arguments" of tools\/call must be an object/ },
    },
    {
      given: 'tools/call with an array for arguments',
      text: '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"createUser","arguments":[]}}',
      want: { code: -32602, id: 4 },
    },
  ])('refuses $given', ({ text, want }) => {
    const checked = checkMessage(text);
    expect('unreadable' in checked && checked.unreadable).toMatchObject({
      ...want,
      message: want.message ?? expect.any(String),
    });
  });

  it.each([
    '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    '{"jsonrpc":"2.0","method":"notifications/initialized"}',
    '{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"createUser","arguments":{}}}',
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"createUser"}}',
    '{"jsonrpc":"2.0","id":1,"result":{}}',
  ])('passes %s on as it was sent', (text) => {
    expect(checkMessage(text)).toEqual({ message: JSON.parse(text) });
  });
});
