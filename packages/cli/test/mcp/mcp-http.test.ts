/**
 * The MCP server over Streamable HTTP (mcp-http.ts), in this process on real sockets, in front of
 * a recording HTTP server that plays the service: it answers only requests addressed to it (DNS
 * rebinding: a web page whose name resolves to 127.0.0.1 sends its own name in `Host`, and its
 * `Origin`) and sends nothing for a refused one; it serves MCP at `/mcp` alone; and the SDK's own
 * client calls a tool through it, each attempt signed both ways with a nonce of its own.
 */

import { createUsersClient } from '@institution-api/client';
import { parseAuthorization, verifySync } from '@institution-api/signing/node';
import { verdictOf } from '@institution-api/test-support/message-signature-verdict';
import { sendRaw } from '@institution-api/test-support/raw-request';
import { startServer, type TestServer } from '@institution-api/test-support/recording-server';
import { testKeys } from '@institution-api/test-support/test-keys';
import { userBody, userCreatedExample } from '@institution-api/test-support/user-bodies';
import { openapiDocument } from '@institution-api/types';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpHttp, startMcpHttp } from '../../src/mcp/mcp-http.js';
import { createMcpServer } from '../../src/mcp/mcp-server.js';
import { toolCalls } from '../../src/mcp/tool-calls.js';
import { deriveOperationTools } from '../../src/mcp/tool-definitions.js';

/** A tools/call of createUser: what a page would have the server sign and send. */
const createCall = JSON.stringify({
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params: { name: 'createUser', arguments: userBody('MomoAccountUser') },
});

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'mcp-http-test', version: '1.0.0' },
  },
});

const mcpHeaders = {
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
};

let service: TestServer;
let mcp: McpHttp;
let port: string;
const logged: string[] = [];

beforeAll(async () => {
  // The first attempt of a call is answered 503, the next 201: a retry the client makes itself.
  service = await startServer((_request, response, n) => {
    if (n % 2 === 0) {
      response
        .writeHead(503, { 'content-type': 'application/problem+json', 'retry-after': '0' })
        .end(JSON.stringify({ type: 'about:blank', title: 'Unavailable', status: 503 }));
    } else {
      response
        .writeHead(201, { 'content-type': 'application/json' })
        .end(JSON.stringify(userCreatedExample()));
    }
  });
  const client = createUsersClient({ baseUrl: service.url, ...testKeys });
  const tools = deriveOperationTools(openapiDocument);
  const log = (line: string) => logged.push(line);
  const call = toolCalls({ client, baseUrl: service.url, tools, log });
  mcp = await startMcpHttp({
    createServer: () => createMcpServer({ tools, call, title: 'test', instructions: 'test' }),
    log,
  });
  port = new URL(mcp.url).port;
});
afterAll(async () => {
  await mcp?.close(1_000);
  await service?.close();
});

describe('mcp --http', () => {
  it('listens on 127.0.0.1 at /mcp', () => {
    expect(mcp.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });

  it.each([
    { given: 'Host of another name', host: () => 'evil.example.com', want: 421 },
    {
      given: 'Host of another name at the port',
      host: () => `evil.example.com:${port}`,
      want: 421,
    },
    { given: 'Host of 127.0.0.1 at another port', host: () => '127.0.0.1:1', want: 421 },
    {
      given: 'Origin of another site',
      host: () => `127.0.0.1:${port}`,
      origin: 'https://evil.example.com',
      want: 403,
    },
    {
      given: 'absolute-form target naming another host',
      host: () => `127.0.0.1:${port}`,
      target: 'http://evil.example.com/mcp',
      want: 421,
    },
  ])(
    'refuses a tool call with $given ($want), and sends nothing',
    async ({ host, origin, target, want }) => {
      const before = service.requests.length;
      const answer = await sendRaw(`http://127.0.0.1:${port}`, {
        method: 'POST',
        target: target ?? '/mcp',
        host: host(),
        headers: { ...mcpHeaders, ...(origin && { Origin: origin }) },
        body: createCall,
      });
      expect(answer.status).toBe(want);
      expect(answer.body).toMatchObject({ jsonrpc: '2.0', error: { message: expect.any(String) } });
      expect(service.requests.length).toBe(before);
      expect(logged.at(-1)).toMatch(new RegExp(`-> ${want} \\(refused: `));
    },
  );

  it.each([
    { given: 'Host 127.0.0.1 and its port', host: () => `127.0.0.1:${port}` },
    { given: 'Host localhost and its port', host: () => `localhost:${port}` },
    { given: 'Host [::1] and its port', host: () => `[::1]:${port}` },
    {
      given: 'an Origin of its own',
      host: () => `localhost:${port}`,
      origin: () => `http://localhost:${port}`,
    },
    {
      given: 'an absolute-form target naming it',
      host: () => `127.0.0.1:${port}`,
      target: () => `http://127.0.0.1:${port}/mcp`,
    },
  ])('answers initialize with $given', async ({ host, origin, target }) => {
    const answer = await sendRaw(`http://127.0.0.1:${port}`, {
      method: 'POST',
      target: target?.() ?? '/mcp',
      host: host(),
      headers: { ...mcpHeaders, ...(origin && { Origin: origin() }) },
      body: initialize,
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ result: { serverInfo: { name: 'institution-api' } } });
  });

  it.each([
    { given: 'GET /mcp (no stream of its own)', method: 'GET', target: '/mcp', want: 405 },
    { given: 'DELETE /mcp (no session)', method: 'DELETE', target: '/mcp', want: 405 },
    { given: 'POST /other', method: 'POST', target: '/other', want: 404 },
  ])('answers $given with $want', async ({ method, target, want }) => {
    const answer = await sendRaw(`http://127.0.0.1:${port}`, {
      method,
      target,
      headers: mcpHeaders,
      ...(method === 'POST' && { body: initialize }),
    });
    expect(answer.status).toBe(want);
    if (want === 405) expect(answer.headers.allow).toBe('POST');
  });

  it("serves the SDK's client: a call signed both ways, each attempt with a nonce of its own", async () => {
    const client = new Client({ name: 'mcp-http-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url)));
    try {
      const before = service.requests.length;
      const result = await client.callTool({
        name: 'createUser',
        arguments: userBody('MomoAccountUser'),
      });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({
        status: 201,
        user: { id: userCreatedExample().id },
      });
      const attempts = service.requests.slice(before);
      expect(attempts).toHaveLength(2);
      const nonces = attempts.map((request) => {
        const seen = { ...request, url: `${service.url}${request.url}` };
        const verdict = verdictOf(seen);
        expect(verdict.status).toBe('valid');
        const authorization = parseAuthorization(String(request.headers.authorization));
        expect(authorization?.publicKey).toBe(testKeys.publicKey);
        expect(verifySync(request.bytes, authorization?.signature ?? '', testKeys.secretKey)).toBe(
          true,
        );
        return verdict.status === 'valid' ? verdict.nonce : '';
      });
      expect(new Set(nonces).size).toBe(2);
    } finally {
      await client.close();
    }
  });

  it('logs each refusal and call without the secret', () => {
    const log = logged.join('\n');
    expect(log).toMatch(/POST \/mcp -> 421 \(refused: Host "evil\.example\.com"\)/);
    expect(log).toMatch(/createUser -> 201 \(\d+ ms\)/);
    expect(log).not.toContain(testKeys.secretKey);
  });
});
