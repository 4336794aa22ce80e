/**
 * `institution-api mcp` as a command, run in this process with its own streams: what it needs to
 * start (the keys, said in one line when missing), its command line, and the stdio server an MCP
 * client talks to, through to the service (a `fetch` that records what it is sent): messages in,
 * answers out, the log on stderr, nothing of the secret anywhere, and a stop at the end of input.
 */
import { PassThrough } from 'node:stream';
import type { FetchLike } from '@institution-api/client';
import { testKeys } from '@institution-api/test-support/test-keys';
import { userBody, userCreatedExample } from '@institution-api/test-support/user-bodies';
import { waitFor } from '@institution-api/test-support/wait-for';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src/main.js';
import { mcp, mcpUsage } from '../../src/mcp/mcp-command.js';
import { initializeRequest, modernMeta } from './support/raw-messages.js';

const keys = {
  INSTITUTION_PUBLIC_KEY: testKeys.publicKey,
  INSTITUTION_SECRET_KEY: testKeys.secretKey,
};

/** Runs `mcp <args>` with `env`; resolves with its exit code and what it printed. */
async function run(args: string[], env: Record<string, string | undefined>) {
  let stdout = '';
  let stderr = '';
  const code = await mcp(args, {
    env,
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    stop: new Promise(() => {}),
  });
  return { code, stdout, stderr };
}

describe('mcp refuses to start', () => {
  it.each([
    {
      given: 'without either key',
      env: {},
      want: /^institution-api mcp: INSTITUTION_PUBLIC_KEY and INSTITUTION_SECRET_KEY are not set: set INSTITUTION_PUBLIC_KEY and INSTITUTION_SECRET_KEY \(the institution's key pair\) and INSTITUTION_API_URL .* \(its "env"\)\.\n$/,
    },
    {
      given: 'without the secret key',
      env: { INSTITUTION_PUBLIC_KEY: 'pk' },
      want: /^institution-api mcp: INSTITUTION_SECRET_KEY is not set: set INSTITUTION_PUBLIC_KEY and INSTITUTION_SECRET_KEY/,
    },
    {
      given: 'with an empty public key',
      env: { INSTITUTION_PUBLIC_KEY: '', INSTITUTION_SECRET_KEY: 'sk' },
      want: /^institution-api mcp: INSTITUTION_PUBLIC_KEY is not set: /,
    },
  ])('$given, in one line saying what to set (exit 2)', async ({ env, want }) => {
    for (const args of [[], ['--http']]) {
      const { code, stdout, stderr } = await run(args, env);
      expect(code).toBe(EXIT.usage);
      expect(stdout).toBe('');
      expect(stderr).toMatch(want);
      expect(stderr.split('\n').filter(Boolean)).toHaveLength(1);
    }
  });

  it.each([
    { args: ['--port', '8093'], want: /--port is an option of --http/ },
    { args: ['--http', '--port', 'x'], want: /--port must be an integer from 0 to 65535/ },
    { args: ['--http', '--allow-host', 'a b'], want: /--allow-host/ },
    { args: ['--algorithm', 'md5'], want: /--algorithm must be one of sha256, sha512/ },
    { args: ['--frobnicate'], want: /Unknown option '--frobnicate'/ },
    { args: ['--token-file', 'x'], want: /--token-file is an option of --http/ },
    {
      args: ['--http'],
      env: { INSTITUTION_MCP_TOKEN: 'too-short-a-secret' },
      want: /the token of INSTITUTION_MCP_TOKEN must be at least 22 characters/,
    },
  ])('with $args (exit 2, naming the option)', async ({ args, env, want }) => {
    const { code, stderr } = await run(args, { ...keys, ...env });
    expect(stderr).not.toContain('too-short-a-secret');
    expect(code).toBe(EXIT.usage);
    expect(stderr).toMatch(want);
    expect(stderr).toContain('Run institution-api mcp --help for usage.');
  });

  it('prints its help without keys', async () => {
    const { code, stdout } = await run(['--help'], {});
    expect(code).toBe(EXIT.ok);
    expect(stdout).toBe(mcpUsage());
    expect(stdout).toContain('INSTITUTION_SECRET_KEY');
  });
});

describe('mcp over stdio', () => {
  it('answers 2026-07-28 requests (server/discover, each with its _meta) and refuses a line that is not JSON-RPC', async () => {
    const input = new PassThrough();
    const messages = new PassThrough();
    let out = '';
    messages.setEncoding('utf8').on('data', (text: string) => {
      out += text;
    });
    let stderr = '';
    const exit = mcp([], {
      env: { ...keys, INSTITUTION_API_URL: 'http://service.test' },
      stdout: () => {
        throw new Error('nothing but messages may go to stdout');
      },
      stderr: (text) => {
        stderr += text;
      },
      stdin: input,
      messages,
      fetch: async () => new Response(JSON.stringify(userCreatedExample()), { status: 201 }),
      stop: new Promise(() => {}),
    });
    const _meta = modernMeta('mcp-command-test');
    input.write('{"jsonrpc":"2.0","id":9,"method"\n');
    for (const message of [
      { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta } },
      { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta } },
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { _meta, name: 'createUser', arguments: userBody('MomoAccountUser') },
      },
    ]) {
      input.write(`${JSON.stringify(message)}\n`);
    }
    await waitFor(() => out.split('\n').filter(Boolean).length >= 4, {
      timeoutMs: 10_000,
      intervalMs: 10,
      message: () => `expected 4 answers: ${out}`,
    });
    const answers = out
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    expect(answers[0]).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error: the message is not JSON.' },
    });
    const byId = new Map(answers.map((answer) => [answer.id, answer]));
    expect(byId.get(1)?.result).toMatchObject({
      supportedVersions: expect.arrayContaining(['2026-07-28']),
      capabilities: { tools: {}, resources: {} },
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'institution-api' } },
    });
    expect(byId.get(2)?.result.tools).toHaveLength(2);
    expect(byId.get(3)?.result.structuredContent).toMatchObject({ status: 201 });
    expect(stderr).toContain('institution-api mcp: stdin: refused a message (-32700: Parse error');
    input.end();
    expect(await exit).toBe(EXIT.ok);
  });

  it('answers initialize, tools/list and a tool call, logs on stderr, stops at the end of input', async () => {
    const input = new PassThrough();
    const messages = new PassThrough();
    let out = '';
    messages.setEncoding('utf8').on('data', (text: string) => {
      out += text;
    });
    let stderr = '';
    const sent: { url: string; headers: Record<string, string> }[] = [];
    const fetch: FetchLike = async (url, init) => {
      sent.push({ url: String(url), headers: init?.headers as Record<string, string> });
      return new Response(JSON.stringify(userCreatedExample()), { status: 201 });
    };
    const exit = mcp([], {
      env: { ...keys, INSTITUTION_API_URL: 'http://service.test' },
      stdout: () => {
        throw new Error('nothing but messages may go to stdout');
      },
      stderr: (text) => {
        stderr += text;
      },
      stdin: input,
      messages,
      fetch,
      stop: new Promise(() => {}),
    });
    const answers = async (count: number) => {
      const lines = await waitFor(
        () => {
          const all = out.split('\n').filter(Boolean);
          return all.length >= count && all;
        },
        { timeoutMs: 10_000, intervalMs: 10, message: () => `expected ${count} answers: ${out}` },
      );
      // By id: a call answered later than the one after it (the service's time) comes later.
      return lines.map((line) => JSON.parse(line)).sort((a, b) => a.id - b.id);
    };
    const send = (message: object) => input.write(`${JSON.stringify(message)}\n`);
    send(initializeRequest('mcp-command-test'));
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    send({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'createUser', arguments: userBody('MomoAccountUser') },
    });
    send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'deleteUser' } });
    const [initialized, listed, called, unknown] = await answers(4);
    expect(initialized.result.serverInfo.name).toBe('institution-api');
    expect(listed.result.tools.map((tool: { name: string }) => tool.name)).toEqual([
      'createUser',
      'updateUser',
    ]);
    expect(called.result.structuredContent).toMatchObject({ status: 201 });
    // -32602 with the SDK's message as it is, without a second "MCP error" prefix.
    expect(unknown.error).toEqual({
      code: -32602,
      message: 'Unknown tool: deleteUser (the tools are createUser, updateUser)',
    });
    expect(sent).toHaveLength(1);
    expect(sent[0]?.url).toBe('http://service.test/api/v1/external/users');
    expect(sent[0]?.headers).toMatchObject({
      Authorization: expect.stringMatching(new RegExp(`^${testKeys.publicKey}:[0-9a-f]{64}$`)),
      'signature-input': expect.stringContaining(`keyid="${testKeys.publicKey}"`),
    });
    input.end();
    expect(await exit).toBe(EXIT.ok);
    expect(stderr).toMatch(
      /^institution-api mcp: tools createUser, updateUser for http:\/\/service\.test, signed/,
    );
    expect(stderr).toMatch(/\ninstitution-api mcp: createUser -> 201 \(\d+ ms\)\n$/);
    expect(`${out}${stderr}`).not.toContain(testKeys.secretKey);
  });
});
