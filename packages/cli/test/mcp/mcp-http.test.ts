/**
 * The MCP server over Streamable HTTP (mcp-http.ts), in this process on real sockets, in front of
 * a recording HTTP server that plays the service: it answers only requests addressed to it (DNS
 * rebinding: a web page whose name resolves to 127.0.0.1 sends its own name in `Host`, and its
 * `Origin`) that carry its bearer token, and sends nothing for a refused one; it answers a
 * message that is not JSON-RPC with -32700/-32600; it serves MCP at `/mcp` alone, to clients of
 * protocol 2026-07-28 and of 2025-11-25; and the SDK's own client calls a tool through it, each
 * attempt signed both ways with a nonce of its own, and cancels one (no retry goes out after).
 */

import { createUsersClient } from '@institution-api/client';
import { parseAuthorization, verifySync } from '@institution-api/signing/node';
import { verdictOf } from '@institution-api/test-support/message-signature-verdict';
import { sendRaw } from '@institution-api/test-support/raw-request';
import { startServer, type TestServer } from '@institution-api/test-support/recording-server';
import { testKeys } from '@institution-api/test-support/test-keys';
import { userBody, userCreatedExample } from '@institution-api/test-support/user-bodies';
import { waitFor } from '@institution-api/test-support/wait-for';
import { openapiDocument } from '@institution-api/types';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveToken } from '../../src/mcp/bearer-token.js';
import { type McpHttp, startMcpHttp } from '../../src/mcp/mcp-http.js';
import { mcpServerFactory } from '../../src/mcp/mcp-server.js';
import { argumentChecks } from '../../src/mcp/tool-arguments.js';
import { toolCalls } from '../../src/mcp/tool-calls.js';
import { deriveOperationTools } from '../../src/mcp/tool-definitions.js';
import { initializeRequest } from './support/raw-messages.js';

const token = 'tok_mcp_http_test_0123456789abcdef';

/** A tools/call of createUser: what a page would have the server sign and send. */
const createCall = JSON.stringify({
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params: { name: 'createUser', arguments: userBody('MomoAccountUser') },
});

const initialize = JSON.stringify(initializeRequest('mcp-http-test'));

const mcpHeaders = {
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
  Authorization: `Bearer ${token}`,
};

/** The JSON-RPC message of an answer, whether a JSON body or one SSE `data:` event. */
function messageOf(text: string): Record<string, unknown> | undefined {
  const data = /^data: (.+)$/m.exec(text)?.[1];
  try {
    return JSON.parse(data ?? text);
  } catch {
    return undefined;
  }
}

let service: TestServer;
let mcp: McpHttp;
let port: string;
const logged: string[] = [];
/** The service's answer to each request: 503 then 201, or never (to be cancelled). */
let answering: 'retry-once' | 'never' = 'retry-once';

beforeAll(async () => {
  service = await startServer((_request, response, n) => {
    if (answering === 'never') return;
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
  const call = toolCalls({
    client,
    baseUrl: service.url,
    tools,
    check: argumentChecks(openapiDocument, tools),
    budget: { attempts: 3, timeoutMs: 10_000 },
    log,
    stopping: new AbortController().signal,
  });
  mcp = await startMcpHttp({
    createServer: mcpServerFactory({
      tools,
      call,
      resources: [],
      title: 'test',
      instructions: 'test',
    }),
    token: await resolveToken({ INSTITUTION_MCP_TOKEN: token }, undefined),
    log,
  });
  port = new URL(mcp.url).port;
});
afterAll(async () => {
  const stopped = mcp?.stopAccepting(1_000);
  await mcp?.close();
  await stopped;
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
    expect(messageOf(answer.text)).toMatchObject({
      result: { serverInfo: { name: 'institution-api' } },
    });
    expect(answer.headers['mcp-session-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it.each([
    {
      given: 'no Authorization',
      authorization: undefined,
      why: 'no bearer token',
      challenge: 'Bearer realm="institution-api mcp"',
    },
    {
      given: 'another token',
      authorization: `Bearer ${token}x`,
      why: 'not the bearer token',
      challenge: 'Bearer realm="institution-api mcp", error="invalid_token"',
    },
    {
      given: 'the token as Basic credentials',
      authorization: `Basic ${token}`,
      why: 'no bearer token',
      challenge: 'Bearer realm="institution-api mcp"',
    },
  ])(
    'answers a tool call with $given 401, and sends nothing',
    async ({ authorization, why, challenge }) => {
      const before = service.requests.length;
      const { Authorization: _, ...headers } = mcpHeaders;
      const answer = await sendRaw(`http://127.0.0.1:${port}`, {
        method: 'POST',
        target: '/mcp',
        headers: { ...headers, ...(authorization && { Authorization: authorization }) },
        body: createCall,
      });
      expect(answer.status).toBe(401);
      expect(answer.headers['www-authenticate']).toBe(challenge);
      expect(answer.body).toMatchObject({ jsonrpc: '2.0', error: { message: /^Unauthorized/ } });
      expect(service.requests.length).toBe(before);
      expect(logged.at(-1)).toBe(`POST /mcp -> 401 (${why})`);
    },
  );

  it.each([
    { given: 'text that is not JSON', body: '{"jsonrpc":', want: { code: -32700, id: null } },
    {
      given: 'a message without jsonrpc',
      body: '{"id":3,"method":"tools/list"}',
      want: { code: -32600, id: 3 },
    },
    { given: 'a batch', body: `[${createCall}]`, want: { code: -32600, id: null } },
    {
      given: 'tools/call with arguments that are a string',
      body: '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"createUser","arguments":"x"}}',
      want: { code: -32602, id: 4 },
    },
  ])(
    'answers $given with 400 and $want.code, logs it, and sends nothing',
    async ({ body, want }) => {
      const before = service.requests.length;
      const answer = await sendRaw(`http://127.0.0.1:${port}`, {
        method: 'POST',
        target: '/mcp',
        headers: mcpHeaders,
        body,
      });
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({
        jsonrpc: '2.0',
        id: want.id,
        error: { code: want.code },
      });
      expect(logged.at(-1)).toMatch(new RegExp(`^POST /mcp -> 400 \\(${want.code}: `));
      expect(service.requests.length).toBe(before);
    },
  );

  it.each([
    { given: 'GET /mcp without a session', method: 'GET', target: '/mcp', want: 405 },
    { given: 'DELETE /mcp without a session', method: 'DELETE', target: '/mcp', want: 405 },
    { given: 'POST /other', method: 'POST', target: '/other', want: 404 },
  ])('answers $given with $want', async ({ method, target, want }) => {
    const answer = await sendRaw(`http://127.0.0.1:${port}`, {
      method,
      target,
      headers: mcpHeaders,
      ...(method === 'POST' && { body: initialize }),
    });
    expect(answer.status).toBe(want);
  });

  it.each([
    { era: 'legacy', mode: 'legacy' as const },
    { era: 'modern', mode: { pin: '2026-07-28' } as const },
  ])(
    "serves the SDK's client on the $era protocol: a call signed both ways, each attempt with a nonce of its own",
    async ({ era, mode }) => {
      answering = 'retry-once';
      const client = new Client(
        { name: 'mcp-http-test', version: '1.0.0' },
        { versionNegotiation: { mode } },
      );
      await client.connect(
        new StreamableHTTPClientTransport(new URL(mcp.url), {
          requestInit: { headers: { Authorization: `Bearer ${token}` } },
        }),
      );
      try {
        expect(client.getProtocolEra()).toBe(era);
        const before = service.requests.length;
        const progress: unknown[] = [];
        const result = await client.callTool(
          { name: 'createUser', arguments: userBody('MomoAccountUser') },
          { onprogress: (notice) => progress.push(notice) },
        );
        expect(result.isError).toBeFalsy();
        expect(result.structuredContent).toMatchObject({
          status: 201,
          user: { id: userCreatedExample().id },
        });
        expect(progress).toEqual([
          {
            progress: 1,
            total: 3,
            message: expect.stringMatching(/^attempt 1 of 3 answered 503; attempt 2 in /),
          },
        ]);
        const attempts = service.requests.slice(before);
        expect(attempts).toHaveLength(2);
        const nonces = attempts.map((request) => {
          const seen = { ...request, url: `${service.url}${request.url}` };
          const verdict = verdictOf(seen);
          expect(verdict.status).toBe('valid');
          const authorization = parseAuthorization(String(request.headers.authorization));
          expect(authorization?.publicKey).toBe(testKeys.publicKey);
          expect(
            verifySync(request.bytes, authorization?.signature ?? '', testKeys.secretKey),
          ).toBe(true);
          return verdict.status === 'valid' ? verdict.nonce : '';
        });
        expect(new Set(nonces).size).toBe(2);
      } finally {
        await client.close();
      }
    },
  );

  it.each([
    { era: 'legacy', mode: 'legacy' as const },
    { era: 'modern', mode: { pin: '2026-07-28' } as const },
  ])('ends a call the $era client cancels: no attempt after the cancel', async ({ mode }) => {
    answering = 'never';
    const client = new Client(
      { name: 'mcp-http-test', version: '1.0.0' },
      { versionNegotiation: { mode } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(mcp.url), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    try {
      const before = service.requests.length;
      const cancel = new AbortController();
      const call = client.callTool(
        { name: 'createUser', arguments: userBody('MomoAccountUser') },
        { signal: cancel.signal },
      );
      await waitFor(() => service.requests.length > before, {
        timeoutMs: 5_000,
        message: 'the call never reached the service',
      });
      cancel.abort('the user pressed stop');
      await expect(call).rejects.toThrow('the user pressed stop');
      await waitFor(
        () => logged.some((line) => /createUser -> ended: the client cancelled it/.test(line)),
        {
          timeoutMs: 5_000,
          message: 'the server never ended the call',
        },
      );
      expect(service.requests.length - before).toBe(1);
    } finally {
      answering = 'retry-once';
      await client.close();
    }
  });

  it('logs each refusal and call without the secret', () => {
    const log = logged.join('\n');
    expect(log).toMatch(/POST \/mcp -> 421 \(refused: Host "evil\.example\.com"\)/);
    expect(log).toMatch(/createUser -> 201 \(\d+ ms\)/);
    expect(log).not.toContain(testKeys.secretKey);
    expect(log).not.toContain(token);
  });
});
