/**
 * `institution-api mcp` driven by clients from outside this repository, on both protocol
 * revisions, as their users run them: the MCP Inspector's CLI (2.12, `--protocol-era legacy` and
 * `modern`) over stdio and over HTTP with the bearer token (`--header`); `mcp-remote`, the
 * stdio-to-HTTP bridge desktop clients use, with the token; and raw JSON-RPC over HTTP written
 * here without any SDK (the 2025 handshake with its session; 2026-07-28's `server/discover`,
 * per-request `_meta` and `Mcp-Method`/`Mcp-Name` headers). Then the transport attacked from
 * another OS user (`runuser -u nobody`): without the token, or with another, `401`, and nothing
 * reaches the service. The service is a recording server that answers `createUser` `201`.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  type ListeningProcess,
  startListeningProcess,
} from '@institution-api/test-support/listening-process';
import { startServer, type TestServer } from '@institution-api/test-support/recording-server';
import { userBody, userCreatedExample } from '@institution-api/test-support/user-bodies';
import { waitFor } from '@institution-api/test-support/wait-for';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initializeRequest, modernMeta } from './support/raw-messages.js';

const exec = promisify(execFile);
const require = createRequire(import.meta.url);
const bin = fileURLToPath(new URL('../../bin/institution-api.js', import.meta.url));
/** The Inspector's launcher, the file its package's `bin` names. */
const inspector = join(
  dirname(require.resolve('@modelcontextprotocol/inspector/package.json')),
  'clients/launcher/build/index.js',
);
const mcpRemote = require.resolve('mcp-remote/dist/proxy.js');
const token = 'tok_outside_clients_0123456789abcdef';
const secretKey = 'sk_outside_clients_never_shown_0123';

let service: TestServer;
let mcp: ListeningProcess;
let home: string;
beforeAll(async () => {
  service = await startServer((_request, response) => {
    response
      .writeHead(201, { 'content-type': 'application/json' })
      .end(JSON.stringify(userCreatedExample()));
  });
  mcp = await startListeningProcess([bin, 'mcp', '--http'], {
    PATH: process.env.PATH,
    ...keys(),
    INSTITUTION_MCP_TOKEN: token,
  });
  // The clients keep state under HOME (the Inspector's catalog, mcp-remote's auth folder).
  home = await mkdtemp(join(tmpdir(), 'mcp-outside-clients-'));
});
afterAll(async () => {
  await mcp?.stop();
  await service?.close();
  if (home) await rm(home, { recursive: true, force: true });
});

function keys(): Record<string, string> {
  return {
    INSTITUTION_API_URL: service.url,
    INSTITUTION_PUBLIC_KEY: 'pk_outside_clients',
    INSTITUTION_SECRET_KEY: secretKey,
  };
}

/**
 * Runs the Inspector's CLI; resolves with the JSON it printed (`--format json`): the result on
 * stdout, or the error envelope on stderr.
 */
async function inspect(args: string[]): Promise<Record<string, unknown>> {
  const { stdout, stderr } = await exec(
    process.execPath,
    [inspector, '--cli', '--format', 'json', ...args],
    { env: { PATH: process.env.PATH, HOME: home, NO_COLOR: '1' }, timeout: 60_000 },
  ).catch((error: { stdout?: string; stderr?: string }) => ({
    stdout: error.stdout ?? '',
    stderr: error.stderr ?? '',
  }));
  const json = `${stdout}\n${stderr}`.split('\n').filter((line) => line.startsWith('{'));
  return JSON.parse(json.at(-1) ?? '{}');
}

const createArgs = JSON.stringify(userBody('MomoAccountUser'));

describe('the MCP Inspector CLI', () => {
  const stdio = () => [
    ...Object.entries(keys()).flatMap(([name, value]) => ['-e', `${name}=${value}`]),
    '--',
    process.execPath,
    bin,
    'mcp',
  ];
  const http = () => [
    '--server-url',
    mcp.url,
    '--transport',
    'http',
    '--header',
    `Authorization: Bearer ${token}`,
  ];

  it.each([
    { transport: 'stdio', era: 'legacy', target: stdio },
    { transport: 'stdio', era: 'modern', target: stdio },
    { transport: 'http', era: 'legacy', target: http },
    { transport: 'http', era: 'modern', target: http },
  ])(
    'lists the tools and creates a user over $transport, protocol era $era',
    { timeout: 120_000 },
    async ({ era, target }) => {
      const listed = await inspect(['--protocol-era', era, '--method', 'tools/list', ...target()]);
      expect(listed).toMatchObject({
        result: { tools: [{ name: 'createUser' }, { name: 'updateUser' }] },
      });
      const before = service.requests.length;
      const called = await inspect([
        '--protocol-era',
        era,
        '--method',
        'tools/call',
        '--tool-name',
        'createUser',
        '--tool-args-json',
        createArgs,
        ...target(),
      ]);
      expect(called).toMatchObject({ result: { structuredContent: { status: 201 } } });
      expect(service.requests.length - before).toBe(1);
    },
  );

  it.each([
    { profile: 'spec', flags: [], inputFindings: true },
    { profile: 'strict', flags: ['--strict-schemas'], inputFindings: false },
  ])(
    'lints the input schemas of the $profile profile (--strict): portable when strict',
    { timeout: 60_000 },
    async ({ flags, inputFindings }) => {
      const { stderr } = await exec(
        process.execPath,
        [inspector, '--cli', '--strict', '--method', 'tools/list', ...stdio(), ...flags],
        { env: { PATH: process.env.PATH, HOME: home, NO_COLOR: '1' }, timeout: 60_000 },
      );
      expect(stderr).toMatch(/\b0 errors, \d+ warnings? across 2 tools\./);
      expect(/Path: inputSchema/.test(stderr)).toBe(inputFindings);
    },
  );

  it('gets nothing without the token: 401, and nothing reaches the service', async () => {
    const before = service.requests.length;
    const answer = await inspect([
      '--method',
      'tools/list',
      '--server-url',
      mcp.url,
      '--transport',
      'http',
    ]);
    expect(answer).toHaveProperty('error');
    expect(answer).not.toHaveProperty('result');
    expect(mcp.output()).toMatch(/POST \/mcp -> 401 \(no bearer token\)/);
    expect(service.requests.length).toBe(before);
  });
});

describe('mcp-remote, the stdio bridge, with the token', () => {
  it('bridges a client of 2025-11-25 to the server: initialize, tools/list, a call', {
    timeout: 60_000,
  }, async () => {
    const bridge = spawn(
      process.execPath,
      [mcpRemote, mcp.url, '--header', `Authorization:Bearer ${token}`],
      { env: { PATH: process.env.PATH, HOME: home } },
    );
    let out = '';
    bridge.stdout.setEncoding('utf8').on('data', (text: string) => {
      out += text;
    });
    const answer = async (id: number) =>
      waitFor(
        () =>
          out
            .split('\n')
            .filter(Boolean)
            .map((line) => JSON.parse(line))
            .find((message) => message.id === id),
        { timeoutMs: 30_000, message: `no answer ${id} from mcp-remote: ${out}` },
      );
    const send = (message: object) => bridge.stdin.write(`${JSON.stringify(message)}\n`);
    try {
      send(initializeRequest('raw'));
      expect(await answer(1)).toMatchObject({
        result: { serverInfo: { name: 'institution-api' } },
      });
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
      expect((await answer(2)).result.tools).toHaveLength(2);
      send({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'createUser', arguments: userBody('MomoAccountUser') },
      });
      expect(await answer(3)).toMatchObject({ result: { structuredContent: { status: 201 } } });
    } finally {
      bridge.kill('SIGTERM');
    }
  });
});

describe('raw JSON-RPC over HTTP, without an SDK', () => {
  /** One POST to the server; the answer's message, whether JSON or one SSE event. */
  async function post(body: object, headers: Record<string, string> = {}) {
    const response = await fetch(mcp.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${token}`,
        ...headers,
      },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    const events = [...text.matchAll(/^data: (.+)$/gm)].map(([, data]) => JSON.parse(data ?? ''));
    const message = events.length > 0 ? events.at(-1) : text ? JSON.parse(text) : undefined;
    return { status: response.status, headers: response.headers, message };
  }

  it('speaks 2025-11-25: initialize, a session, then a call in it', async () => {
    const opened = await post(initializeRequest('raw'));
    expect(opened.message.result.protocolVersion).toBe('2025-11-25');
    const session = opened.headers.get('mcp-session-id') ?? '';
    expect(session).toMatch(/^[0-9a-f-]{36}$/);
    const inSession = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    expect(
      (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, inSession)).status,
    ).toBe(202);
    const called = await post(
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'createUser', arguments: userBody('MomoAccountUser') },
      },
      inSession,
    );
    expect(called.message).toMatchObject({ id: 2, result: { structuredContent: { status: 201 } } });
  });

  it('speaks 2026-07-28: server/discover, then a call, each with its _meta and headers', async () => {
    const _meta = modernMeta('raw');
    const modern = (method: string, name?: string) => ({
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(name && { 'mcp-name': name }),
    });
    const discovered = await post(
      { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta } },
      modern('server/discover'),
    );
    expect(discovered.message.result.supportedVersions).toContain('2026-07-28');
    expect(discovered.headers.get('mcp-session-id')).toBeNull();
    const called = await post(
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { _meta, name: 'createUser', arguments: userBody('MomoAccountUser') },
      },
      modern('tools/call', 'createUser'),
    );
    expect(called.message).toMatchObject({ id: 2, result: { structuredContent: { status: 201 } } });
  });
});

describe('another OS user on this machine', () => {
  const asNobody = process.getuid?.() === 0;
  it.skipIf(!asNobody)(
    'gets 401 without the token or with another, and nothing is signed or sent',
    async () => {
      const before = service.requests.length;
      const call = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'createUser', arguments: userBody('MomoAccountUser') },
      });
      for (const authorization of [
        [],
        ['-H', 'Authorization: Bearer tok_guessed_0123456789abcdef'],
      ]) {
        const { stdout } = await exec('runuser', [
          '-u',
          'nobody',
          '--',
          'curl',
          '-s',
          '-o',
          '/dev/null',
          '-w',
          '%{http_code}',
          '-X',
          'POST',
          '-H',
          'Content-Type: application/json',
          '-H',
          'Accept: application/json, text/event-stream',
          ...authorization,
          '--data',
          call,
          mcp.url,
        ]);
        expect(stdout).toBe('401');
      }
      expect(service.requests.length).toBe(before);
      expect(mcp.output()).toMatch(/POST \/mcp -> 401 \(not the bearer token\)/);
      expect(mcp.output()).not.toContain(token);
      expect(mcp.output()).not.toContain(secretKey);
    },
  );
});
