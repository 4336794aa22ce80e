/**
 * A call the client cancels ends for good: against a service that never answers, the MCP SDK's
 * v2 client cancels a `createUser` call (its AbortSignal: `notifications/cancelled` on stdio and
 * on a 2025 session, the request's stream closed on 2026-07-28), and the service's log shows the
 * one attempt sent before the cancel and nothing after it, though the CLI would retry a timed-out
 * attempt after 10 s. Over stdio and over HTTP, on both protocol revisions, side by side (the
 * wait for a retry that must not come is spent once). The built CLI runs in processes of its own.
 */
import { fileURLToPath } from 'node:url';
import { startListeningProcess } from '@institution-api/test-support/listening-process';
import { startServer, type TestServer } from '@institution-api/test-support/recording-server';
import { userBody } from '@institution-api/test-support/user-bodies';
import { waitFor } from '@institution-api/test-support/wait-for';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../../bin/institution-api.js', import.meta.url));
const token = 'tok_cancel_test_0123456789abcdef';
/** The CLI's budget of one attempt (the client's default): a retry would go out after it. */
const attemptBudgetMs = 10_000;

type Mode = 'legacy' | { pin: '2026-07-28' };

/** A service that records when each request arrives and never answers. */
async function hangingService(): Promise<{ service: TestServer; arrivals: number[] }> {
  const arrivals: number[] = [];
  const service = await startServer(() => {
    arrivals.push(performance.now());
  });
  return { service, arrivals };
}

function environment(service: TestServer): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    INSTITUTION_API_URL: service.url,
    INSTITUTION_PUBLIC_KEY: 'pk_cancel',
    INSTITUTION_SECRET_KEY: 'sk_cancel_never_shown_0123456789',
  };
}

/** A client connected one way to a server of its own, in front of a service of its own. */
async function connect(transport: 'stdio' | 'http', mode: Mode) {
  const { service, arrivals } = await hangingService();
  const client = new Client(
    { name: 'cancel-test', version: '1.0.0' },
    { versionNegotiation: { mode } },
  );
  let log = () => '';
  let stop = async () => {};
  if (transport === 'stdio') {
    const stdio = new StdioClientTransport({
      command: process.execPath,
      args: [bin, 'mcp'],
      env: environment(service),
      stderr: 'pipe',
    });
    let text = '';
    stdio.stderr?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
    });
    log = () => text;
    await client.connect(stdio);
  } else {
    const server = await startListeningProcess([bin, 'mcp', '--http'], {
      ...environment(service),
      INSTITUTION_MCP_TOKEN: token,
    });
    log = server.output;
    stop = server.stop;
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.url), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
  }
  return {
    client,
    arrivals,
    log: () => log(),
    close: async () => {
      await client.close();
      await stop();
      await service.close();
    },
  };
}

describe('a cancelled call', () => {
  it('sends no request after the cancel, over stdio and HTTP, on 2025-11-25 and 2026-07-28', {
    timeout: 120_000,
  }, async () => {
    const cases = [
      { transport: 'stdio', mode: 'legacy' },
      { transport: 'stdio', mode: { pin: '2026-07-28' } },
      { transport: 'http', mode: 'legacy' },
      { transport: 'http', mode: { pin: '2026-07-28' } },
    ] as const;
    const runs = await Promise.all(
      cases.map(async ({ transport, mode }) => {
        const connected = await connect(transport, mode);
        const cancel = new AbortController();
        const call = connected.client.callTool(
          { name: 'createUser', arguments: userBody('MomoAccountUser') },
          { signal: cancel.signal, timeout: 120_000 },
        );
        await waitFor(() => connected.arrivals.length > 0, {
          timeoutMs: 20_000,
          message: 'the call never reached the service',
        });
        cancel.abort('the user pressed stop');
        const cancelledAt = performance.now();
        await expect(call).rejects.toThrow('the user pressed stop');
        await waitFor(() => /createUser -> ended: the client cancelled it/.test(connected.log()), {
          timeoutMs: 10_000,
          message: `the server never ended the call: ${connected.log()}`,
        });
        return { transport, mode, connected, cancelledAt };
      }),
    );
    // Longer than one attempt's budget and the longest backoff: a retry would have come.
    const since = Math.min(...runs.map(({ cancelledAt }) => cancelledAt));
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(0, since + attemptBudgetMs + 1_500 - performance.now())),
    );
    for (const { transport, mode, connected, cancelledAt } of runs) {
      const after = connected.arrivals.filter((at) => at > cancelledAt);
      expect(connected.arrivals, `${transport} ${JSON.stringify(mode)}`).toHaveLength(1);
      expect(after, `${transport} ${JSON.stringify(mode)}`).toEqual([]);
      expect(connected.log()).toMatch(/createUser -> ended: the client cancelled it, 1 attempt in/);
      await connected.close();
    }
  });
});
