/**
 * `institution-api mcp` over stdio, as an MCP client runs it: its standard output carries the
 * protocol's messages and nothing else (its log goes to standard error), and it stops when the
 * client closes its input or sends SIGTERM. The built CLI runs in a process of its own.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../../bin/institution-api.js', import.meta.url));

/** The server, with what it printed on each stream. */
function start(): { child: ChildProcessWithoutNullStreams; stdout(): string; stderr(): string } {
  const child = spawn(process.execPath, [bin, 'mcp'], {
    env: {
      PATH: process.env.PATH,
      INSTITUTION_API_URL: 'http://127.0.0.1:9',
      INSTITUTION_PUBLIC_KEY: 'pk_mcp_stdio',
      INSTITUTION_SECRET_KEY: 'sk_mcp_stdio_never_shown',
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    stdout += text;
  });
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
  });
  return { child, stdout: () => stdout, stderr: () => stderr };
}

/** Waits until `read()` holds `lines` lines, 20 s at most. */
async function untilLines(read: () => string, lines: number): Promise<string[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const found = read().split('\n').filter(Boolean);
    if (found.length >= lines) return found;
    if (Date.now() > deadline) throw new Error(`expected ${lines} lines, got: ${read()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const messages = [
  {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'stdio-test', version: '1.0.0' },
    },
  },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', id: 2, method: 'tools/list' },
];

describe('mcp over stdio', () => {
  it('writes only JSON-RPC messages on stdout, its log on stderr', async () => {
    const server = start();
    for (const message of messages) server.child.stdin.write(`${JSON.stringify(message)}\n`);
    const lines = await untilLines(server.stdout, 2);
    const answers = lines.map((line) => JSON.parse(line));
    expect(answers.map((answer) => [answer.jsonrpc, answer.id])).toEqual([
      ['2.0', 1],
      ['2.0', 2],
    ]);
    expect(answers[1].result.tools.map((tool: { name: string }) => tool.name)).toEqual([
      'createUser',
      'updateUser',
    ]);
    expect(server.stderr()).toMatch(/^institution-api mcp: tools createUser, updateUser for /);
    server.child.stdin.end();
    await once(server.child, 'exit');
  });

  it.each([
    {
      given: 'the end of its input',
      stop: (child: ChildProcessWithoutNullStreams) => child.stdin.end(),
    },
    { given: 'SIGTERM', stop: (child: ChildProcessWithoutNullStreams) => child.kill('SIGTERM') },
  ])('stops at $given, exit 0', async ({ stop }) => {
    const server = start();
    await untilLines(server.stderr, 1);
    const started = performance.now();
    stop(server.child);
    const [code] = await once(server.child, 'exit');
    expect(code).toBe(0);
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
