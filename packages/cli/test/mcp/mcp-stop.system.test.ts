/**
 * `institution-api mcp --http` stops as the toolkit's servers do: on SIGTERM, a call the service
 * answers within the drain is answered; one it never answers is cut at the drain and answered
 * with an error saying the server is stopping, before the process exits 0 without sending
 * anything more. The built CLI runs in a process of its own; the service is a recording HTTP
 * server.
 */
import { fileURLToPath } from 'node:url';
import { startListeningProcess } from '@institution-api/test-support/listening-process';
import { startServer, type TestServer } from '@institution-api/test-support/recording-server';
import { userBody, userCreatedExample } from '@institution-api/test-support/user-bodies';
import { describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../../bin/institution-api.js', import.meta.url));
const secretKey = 'sk_mcp_http_never_shown_0123456789';
const token = 'tok_mcp_stop_0123456789abcdefgh';

function environment(service: string, more: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    INSTITUTION_API_URL: service,
    INSTITUTION_PUBLIC_KEY: 'pk_mcp_http',
    INSTITUTION_SECRET_KEY: secretKey,
    INSTITUTION_MCP_TOKEN: token,
    ...more,
  };
}

/** A tools/call of createUser, as an MCP client sends it. */
const createCall = JSON.stringify({
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params: { name: 'createUser', arguments: userBody('MomoAccountUser') },
});

const mcpHeaders = {
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
  Authorization: `Bearer ${token}`,
};

describe('mcp --http stops', () => {
  /** Calls createUser over HTTP as an MCP client does, without waiting for the answer. */
  function callCreate(url: string) {
    return fetch(url, { method: 'POST', headers: mcpHeaders, body: createCall }).then(
      async (response) => {
        // One JSON body, or the result as the last event of a stream.
        const text = await response.text();
        const data = [...text.matchAll(/^data: (.+)$/gm)].at(-1)?.[1] ?? text;
        return { status: response.status, body: JSON.parse(data) };
      },
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
      given:
        'a call the service never answers: cut at the drain, answered with an error, then it exits',
      drainMs: 300,
      answerAfterMs: undefined,
      want: {
        status: 200,
        error:
          /^createUser did not complete: the MCP server is stopping \(SIGTERM or Ctrl-C\) after 1 attempt/,
        exitWithinMs: [250, 4_000],
      },
    },
  ])('on SIGTERM, $given', async ({ drainMs, answerAfterMs, want }) => {
    const service = await startServer((_request, response) => {
      if (answerAfterMs === undefined) return;
      setTimeout(() => {
        response
          .writeHead(201, { 'content-type': 'application/json' })
          .end(JSON.stringify(userCreatedExample()));
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
      const { status, body } = await answer;
      expect(status).toBe(want.status);
      if (want.error) {
        expect(body.result.isError).toBe(true);
        expect(body.result.content[0].text).toMatch(want.error);
      } else {
        expect(body.result.structuredContent).toMatchObject({ status: 201 });
      }
      // Nothing more was sent: no retry of the cut call after the stop.
      expect(service.requests).toHaveLength(1);
      expect(mcp.output()).not.toContain(secretKey);
    } finally {
      await mcp.stop();
      await service.close();
    }
  });
});
