/**
 * `institution-api mcp --http` stops as the toolkit's servers do: on SIGTERM, a call the service
 * answers within the drain is answered, one it never answers is cut at the drain, and the
 * process exits 0 without sending anything more. The built CLI runs in a process of its own; the
 * service is a recording HTTP server.
 */
import { fileURLToPath } from 'node:url';
import { startListeningProcess } from '@institution-api/test-support/listening-process';
import { startServer, type TestServer } from '@institution-api/test-support/recording-server';
import { describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../../bin/institution-api.js', import.meta.url));
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

/** A tools/call of createUser, as an MCP client sends it. */
const createCall = JSON.stringify({
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params: { name: 'createUser', arguments: { email: 'a@example.com' } },
});

const mcpHeaders = {
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
};

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
      expect(mcp.output()).not.toContain(secretKey);
    } finally {
      await mcp.stop();
      await service.close();
    }
  });
});
