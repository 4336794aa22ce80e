/**
 * `institution-api mcp` over stdio, as an MCP client runs it, with raw JSON-RPC lines written
 * here (no SDK): its standard output carries the protocol's messages and nothing else (its log
 * goes to standard error); it speaks protocol 2025-11-25 (`initialize`) and 2026-07-28
 * (`server/discover`, each request with its `_meta`); a line that is not a JSON-RPC message gets
 * `-32700`/`-32600` and a log line; SIGTERM answers a call in flight with an error before it
 * exits; and it stops when the client closes its input. The built CLI runs in a process of its own.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { startServer, type TestServer } from '@institution-api/test-support/recording-server';
import { userBody } from '@institution-api/test-support/user-bodies';
import { waitFor } from '@institution-api/test-support/wait-for';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initializeRequest, modernMeta } from './support/raw-messages.js';

const bin = fileURLToPath(new URL('../../bin/institution-api.js', import.meta.url));

/** A service that never answers: calls stay in flight. */
let service: TestServer;
beforeAll(async () => {
  service = await startServer(() => {});
});
afterAll(() => service?.close());

/** The server, with what it printed on each stream. */
function start(env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [bin, 'mcp'], {
    env: {
      PATH: process.env.PATH,
      INSTITUTION_API_URL: service.url,
      INSTITUTION_PUBLIC_KEY: 'pk_mcp_stdio',
      INSTITUTION_SECRET_KEY: 'sk_mcp_stdio_never_shown',
      ...env,
    },
  });
  // Listened for from the start: a server that answers and exits between two polls of `messages`
  // has already emitted 'exit' by the time a test would wait for it.
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    stdout += text;
  });
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
  });
  const send = (line: string | object) =>
    child.stdin.write(`${typeof line === 'string' ? line : JSON.stringify(line)}\n`);
  /** The messages it wrote, each parsed, once there are `count` of them. */
  const messages = (count: number) =>
    waitFor(
      () => {
        const lines = stdout.split('\n').filter(Boolean);
        return lines.length >= count && lines.map((line) => JSON.parse(line));
      },
      { timeoutMs: 20_000, intervalMs: 20, message: `expected ${count} messages: ${stdout}` },
    );
  return { child, exited, send, messages, stdout: () => stdout, stderr: () => stderr };
}

const _meta = modernMeta('stdio-test');

describe('mcp over stdio', () => {
  it('speaks 2025-11-25, writing only JSON-RPC messages on stdout, its log on stderr', async () => {
    const server = start();
    server.send(initializeRequest('stdio-test'));
    server.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    server.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const answers = await server.messages(2);
    expect(answers.map((answer) => [answer.jsonrpc, answer.id])).toEqual([
      ['2.0', 1],
      ['2.0', 2],
    ]);
    expect(answers[0].result.protocolVersion).toBe('2025-11-25');
    expect(answers[1].result.tools.map((tool: { name: string }) => tool.name)).toEqual([
      'createUser',
      'updateUser',
    ]);
    expect(server.stderr()).toMatch(/^institution-api mcp: tools createUser, updateUser for /);
    server.child.stdin.end();
    await server.exited;
  });

  it('speaks 2026-07-28: server/discover and requests that carry their _meta', async () => {
    const server = start();
    server.send({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta } });
    server.send({ jsonrpc: '2.0', id: 2, method: 'resources/list', params: { _meta } });
    const [discovered, listed] = await server.messages(2);
    expect(discovered.result.supportedVersions).toContain('2026-07-28');
    expect(listed.result.resources.map((resource: { uri: string }) => resource.uri)).toContain(
      'institution-api://docs/llms.txt',
    );
    server.child.stdin.end();
    await server.exited;
  });

  it('answers lines that are not JSON-RPC messages, logs each, and goes on serving', async () => {
    const server = start();
    server.send('{"jsonrpc": "2.0", "id": 1, "method": "tools/list"');
    server.send('{"id": 2, "method": "tools/list"}');
    server.send('[{"jsonrpc": "2.0", "id": 3, "method": "ping"}]');
    server.send({ jsonrpc: '2.0', id: 4, method: 'server/discover', params: { _meta } });
    const answers = await server.messages(4);
    expect(answers.slice(0, 3)).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.any(String) } },
      {
        jsonrpc: '2.0',
        id: 2,
        error: { code: -32600, message: expect.stringMatching(/"jsonrpc": "2.0"/) },
      },
      {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: expect.stringMatching(/batch/) },
      },
    ]);
    expect(answers[3]).toMatchObject({ id: 4, result: { supportedVersions: ['2026-07-28'] } });
    expect(server.stderr().match(/stdin: refused a message \(-32[67]00: /g)).toHaveLength(3);
    server.child.stdin.end();
    await server.exited;
  });

  it('answers a call in flight with an error on SIGTERM, then exits 0', {
    timeout: 60_000,
  }, async () => {
    const server = start({ SHUTDOWN_DRAIN_MS: '200' });
    const before = service.requests.length;
    server.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { _meta, name: 'createUser', arguments: userBody('MomoAccountUser') },
    });
    await waitFor(() => service.requests.length > before, {
      timeoutMs: 20_000,
      message: 'the call never reached the service',
    });
    server.child.kill('SIGTERM');
    const [answer] = await server.messages(1);
    expect(answer).toMatchObject({ id: 1, result: { isError: true } });
    expect(answer.result.content[0].text).toMatch(
      /^createUser did not complete: the MCP server is stopping \(SIGTERM or Ctrl-C\) after 1 attempt/,
    );
    const [code] = await server.exited;
    expect(code).toBe(0);
    expect(service.requests.length - before).toBe(1);
  });

  it.each([
    {
      given: 'the end of its input',
      stop: (child: ChildProcessWithoutNullStreams) => child.stdin.end(),
    },
    { given: 'SIGTERM', stop: (child: ChildProcessWithoutNullStreams) => child.kill('SIGTERM') },
  ])('stops at $given, exit 0', async ({ stop }) => {
    const server = start();
    await waitFor(() => server.stderr().includes('\n'), {
      timeoutMs: 20_000,
      message: 'it never started',
    });
    const started = performance.now();
    stop(server.child);
    const [code] = await server.exited;
    expect(code).toBe(0);
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
