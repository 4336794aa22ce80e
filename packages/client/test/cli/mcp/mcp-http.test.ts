/**
 * `institution-api mcp --http` as a local listener that acts with the institution's keys: it
 * answers only requests addressed to it (DNS rebinding: a web page whose name resolves to
 * 127.0.0.1 sends its own name in `Host`, and its `Origin`), sends nothing to the service for a
 * refused one, serves MCP at `/mcp` alone, and stops on SIGTERM within the drain. The built CLI
 * runs in a process of its own; the service is a recording HTTP server.
 */
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import {
  type ListeningProcess,
  startListeningProcess,
} from '@institution-api/test-support/listening-process';
import { sendRaw } from '@institution-api/test-support/raw-request';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../support/http-server.js';

const bin = fileURLToPath(new URL('../../../bin/institution-api.js', import.meta.url));
const secretKey = 'sk_mcp_http_never_shown_0123456789';

function environment(service: string, more: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    INSTITUTION_API_URL: service,
    INSTITUTION_PUBLIC_KEY: 'pk_mcp_http',
    INSTITUTION_SECRET_KEY: secretKey,
    ...more,
  };
}

/** A tools/call of createUser: what a page would have the server sign and send. */
const createCall = JSON.stringify({
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params: { name: 'createUser', arguments: { email: 'a@example.com' } },
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

describe('mcp --http', () => {
  let service: TestServer;
  let mcp: ListeningProcess;
  let port: string;
  beforeAll(async () => {
    service = await startServer((_request, response) => {
      response.writeHead(201, { 'content-type': 'application/json' }).end('{}');
    });
    mcp = await startListeningProcess([bin, 'mcp', '--http'], environment(service.url));
    port = new URL(mcp.url).port;
  });
  afterAll(async () => {
    await mcp?.stop();
    await service?.close();
  });

  it('listens on 127.0.0.1 and prints its /mcp address', () => {
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
    },
  );

  it.each([
    { given: 'Host 127.0.0.1 and its port', host: () => `127.0.0.1:${port}` },
    { given: 'Host localhost and its port', host: () => `localhost:${port}` },
    {
      given: 'an Origin of its own',
      host: () => `localhost:${port}`,
      origin: () => `http://localhost:${port}`,
    },
  ])('answers initialize with $given', async ({ host, origin }) => {
    const answer = await sendRaw(`http://127.0.0.1:${port}`, {
      method: 'POST',
      target: '/mcp',
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

  it('logs each refusal without the secret', () => {
    expect(mcp.output()).toMatch(/POST \/mcp -> 421 \(refused: Host "evil\.example\.com"\)/);
    expect(mcp.output()).not.toContain(secretKey);
  });
});

describe('mcp --http stops', () => {
  /** Calls createUser over HTTP as an MCP client does, without waiting for the answer. */
  function callCreate(url: string) {
    return fetch(url, { method: 'POST', headers: mcpHeaders, body: createCall }).then(
      async (response) => ({ status: response.status, body: await response.json() }),
      (error: Error) => ({ status: 0, body: error.message }),
    );
  }

  /** Waits until `service` has received a request (the call is in flight), 10 s at most. */
  async function untilReceived(service: TestServer) {
    const deadline = Date.now() + 10_000;
    while (service.requests.length === 0) {
      if (Date.now() > deadline) throw new Error('the call never reached the service');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it.each([
    {
      given: 'a call the service answers within the drain: answered, then it exits',
      drainMs: 5_000,
      answerAfterMs: 300,
      want: { status: 200, exitWithinMs: [250, 4_000] },
    },
    {
      given: 'a call the service never answers: cut at the drain, then it exits',
      drainMs: 300,
      answerAfterMs: undefined,
      want: { status: 0, exitWithinMs: [250, 4_000] },
    },
  ])('on SIGTERM, $given', async ({ drainMs, answerAfterMs, want }) => {
    const service = await startServer((_request, response) => {
      if (answerAfterMs === undefined) return;
      setTimeout(() => {
        response.writeHead(201, { 'content-type': 'application/json' }).end('{}');
      }, answerAfterMs);
    });
    const mcp = await startListeningProcess(
      [bin, 'mcp', '--http'],
      environment(service.url, { SHUTDOWN_DRAIN_MS: String(drainMs) }),
    );
    try {
      const answer = callCreate(mcp.url);
      await untilReceived(service);
      const started = performance.now();
      mcp.child.kill('SIGTERM');
      const [code] = await mcp.exited;
      const ms = performance.now() - started;
      expect(code, mcp.output()).toBe(0);
      expect(ms).toBeGreaterThanOrEqual(want.exitWithinMs[0] as number);
      expect(ms).toBeLessThan(want.exitWithinMs[1] as number);
      expect((await answer).status).toBe(want.status);
      // Nothing more was sent: no retry of the cut call after the stop.
      expect(service.requests).toHaveLength(1);
    } finally {
      await mcp.stop();
      await service.close();
    }
  });

  it('refuses to start without keys, in one line that says what to set (exit 2)', async () => {
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, [bin, 'mcp', '--http'], {
      env: { PATH: process.env.PATH },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
    });
    const [code] = await once(child, 'exit');
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(stderr).toMatch(/INSTITUTION_PUBLIC_KEY and INSTITUTION_SECRET_KEY are not set: set /);
  });
});
