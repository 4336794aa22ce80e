/**
 * JSON-RPC messages written by hand, as a client without the SDK writes them, for the tests that
 * speak to `institution-api mcp` raw: the 2025-11-25 handshake, and the `_meta` that each request
 * of the stateless 2026-07-28 revision carries instead.
 */

/** The `initialize` request of protocol 2025-11-25 from client `name`. */
export function initializeRequest(name: string, id = 1) {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name, version: '1.0.0' },
    },
  };
}

/** The `_meta` of a protocol 2026-07-28 request from client `name`. */
export function modernMeta(name: string) {
  return {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name, version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
}
