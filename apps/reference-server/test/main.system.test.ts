import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signedRequest } from '@institution-api/test-support/signed-request';
import { waitFor } from '@institution-api/test-support/wait-for';
import { describe, expect, test } from 'vitest';
import { exampleUser } from '../src/demo-banner.js';
import { repeatWindowMs } from '../src/shutdown.js';
import { openStorage } from '../src/storage/open-storage.js';
import { type BuiltServer, mainJs, startBuiltServer } from './crash/built-server.js';

const credential = {
  institution: 'Main Test Bank',
  publicKey: 'pk_main_test',
  secretKey: 'sk_main_test_0123456789abcdef',
};

/**
 * A create of `length` body bytes, of which only `{` is sent: in flight until the rest comes or the
 * connection is cut. Its `Expect: 100-continue` makes the server say when it has taken the
 * request (its interim `100 Continue`), which is what this waits for before the first byte.
 * `answer()` is what the server answered after that.
 */
async function inFlightRequest(
  baseUrl: string,
  length: number,
): Promise<{ socket: Socket; answer: () => string }> {
  const socket = connect(Number(new URL(baseUrl).port), '127.0.0.1');
  await once(socket, 'connect');
  socket.on('error', () => {});
  let received = '';
  socket.on('data', (chunk) => {
    received += chunk;
  });
  socket.write(
    `POST /api/v1/external/users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\nExpect: 100-continue\r\n\r\n`,
  );
  const interim = 'HTTP/1.1 100 Continue\r\n\r\n';
  await waitFor(() => received.startsWith(interim), {
    timeoutMs: 10_000,
    intervalMs: 10,
    message: () => `the server taking the request (100 Continue); received: ${received}`,
  });
  socket.write('{');
  return { socket, answer: () => received.slice(interim.length) };
}

/** A create whose body never finishes arriving: in flight until the connection is cut. */
async function hangingRequest(baseUrl: string): Promise<Socket> {
  return (await inFlightRequest(baseUrl, 100)).socket;
}

/** The first log line (JSON, LOG_LEVEL info or lower) with `msg`, once the server has written it. */
function loggedLine(server: BuiltServer, msg: string): Promise<Record<string, unknown>> {
  return waitFor(
    () =>
      server
        .stdout()
        .split('\n')
        .filter((line) => line.startsWith('{') && line.endsWith('}'))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((line) => line.msg === msg),
    { timeoutMs: 10_000, message: `the log line "${msg}"` },
  );
}

describe('node dist/main.js', () => {
  test('a fresh database gets a demo institution whose printed curl line works', async () => {
    const server = await startBuiltServer({ DATABASE_URL: 'memory://' });
    try {
      const banner = server.stdout();
      expect(banner).toMatch(/docs: http:\/\/localhost:\d+\/docs/);
      const publicKey = /public key: (\S+)/.exec(banner)?.[1];
      const secretKey = /secret key: (\S+)/.exec(banner)?.[1];
      const body = /--data-binary '([^']+)'/.exec(banner)?.[1];
      const authorization = /-H 'Authorization: ([^']+)'/.exec(banner)?.[1];
      expect(publicKey && secretKey && body && authorization).toBeTruthy();
      const answer = await fetch(`${server.baseUrl}/api/v1/external/users`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: authorization ?? '' },
        body,
      });
      expect(answer.status).toBe(201);
    } finally {
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    }
  });

  test.each(['production', 'Production', 'prod'])(
    'NODE_ENV=%s on an empty database: no key pair, one line saying how to issue one, 401',
    async (nodeEnv) => {
      const dir = await mkdtemp(join(tmpdir(), 'reference-server-production-'));
      try {
        const server = await startBuiltServer({ DATABASE_URL: dir, NODE_ENV: nodeEnv });
        try {
          // The banner is written at once, the log lines within the logger's periodic flush.
          await waitFor(() => server.stdout().includes('credentials issue'), {
            timeoutMs: 10_000,
            message: 'the warning of no institution',
          });
          const out = server.stdout();
          expect(out).not.toMatch(/public key:|secret key:|curl /);
          const lines = out.split('\n').filter((line) => line.includes('credentials issue'));
          expect(lines).toHaveLength(1);
          expect(JSON.parse(lines[0] ?? '')).toMatchObject({
            level: 'warn',
            msg: expect.stringContaining('INSTITUTION_CREDENTIALS'),
          });
          // Any key at all, the demo's way of signing included: nothing is accepted.
          const request = signedRequest(
            'POST',
            `${server.baseUrl}/api/v1/external/users`,
            credential,
            { body: exampleUser(), messageSignature: false },
          );
          const answer = await fetch(request.url, request);
          expect(answer.status).toBe(401);
        } finally {
          server.child.kill('SIGTERM');
          expect(await server.exited).toBe(0);
        }
        const storage = await openStorage(dir, { defaultDataDir: '/nonexistent' });
        try {
          expect(await storage.listCredentials()).toEqual([]);
          expect(await storage.countInstitutions()).toBe(0);
        } finally {
          await storage.close();
        }
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );

  test('INSTITUTION_CREDENTIALS are provisioned and no demo is made', async () => {
    const server = await startBuiltServer({
      DATABASE_URL: 'memory://',
      INSTITUTION_CREDENTIALS: JSON.stringify([credential]),
    });
    try {
      expect(server.stdout()).not.toContain('demo institution');
      const request = signedRequest('POST', `${server.baseUrl}/api/v1/external/users`, credential, {
        body: {
          email: 'main.test@example.com',
          firstName: 'Main',
          lastName: 'Test',
          mobileNumber: '0241234567',
          ghanaCardNumber: 'GHA-111222333-4',
          monthlyIncome: 1,
        },
        messageSignature: false,
      });
      const answer = await fetch(request.url, request);
      expect(answer.status).toBe(201);
      // The secret reaches neither stdout nor stderr (the logs).
      expect(server.stdout() + server.stderr()).not.toContain(credential.secretKey);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });

  test('SIGTERM drains an in-flight request, then exits 0', async () => {
    const server = await startBuiltServer({
      DATABASE_URL: 'memory://',
      INSTITUTION_CREDENTIALS: JSON.stringify([credential]),
      LOG_LEVEL: 'info',
    });
    // A request whose body has not fully arrived is in flight when the signal comes.
    const { socket, answer } = await inFlightRequest(server.baseUrl, 2);
    server.child.kill('SIGTERM');
    await loggedLine(server, 'stopping: draining in-flight requests');
    expect(server.child.exitCode).toBeNull(); // still draining
    socket.write('}');
    expect(await server.exited).toBe(0);
    const response = answer();
    expect(response).toMatch(/^HTTP\/1\.1 401 /);
    expect(response).toMatch(/connection: close/i);
    expect(server.stdout()).toContain('"msg":"stopped"');
  });

  test('a request hanging open does not hold the stop beyond SHUTDOWN_DRAIN_MS', async () => {
    const server = await startBuiltServer({
      DATABASE_URL: 'memory://',
      INSTITUTION_CREDENTIALS: JSON.stringify([credential]),
      SHUTDOWN_DRAIN_MS: '500',
    });
    const socket = await hangingRequest(server.baseUrl);
    const stopped = performance.now();
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    const stopMs = performance.now() - stopped;
    socket.destroy();
    console.log(`stop with a hanging request, drain 500 ms: ${Math.round(stopMs)} ms`);
    expect(stopMs).toBeLessThan(500 + 5_000);
  });

  test('stdout a pipe whose reader has gone: the stop still ends', async () => {
    const server = await startBuiltServer({
      DATABASE_URL: 'memory://',
      INSTITUTION_CREDENTIALS: JSON.stringify([credential]),
      LOG_LEVEL: 'info',
    });
    for (let i = 0; i < 3; i += 1) await fetch(`${server.baseUrl}/healthz`);
    const stdout = server.child.stdout;
    stdout?.destroy();
    // Nothing is written between the reader going and the signal: the stop's own log lines are
    // the first to meet the broken pipe, still in flight when the process exits. That is what
    // hung for good (pino's exit-time flush retries a broken pipe forever).
    if (stdout && !stdout.closed) await once(stdout, 'close');
    const stopped = performance.now();
    server.child.kill('SIGTERM');
    const bound = setTimeout(() => server.child.kill('SIGKILL'), 20_000);
    const code = await server.exited;
    clearTimeout(bound);
    console.log(`stop with stdout's reader gone: ${Math.round(performance.now() - stopped)} ms`);
    expect(code).toBe(0);
    expect(performance.now() - stopped).toBeLessThan(10_000 + 5_000);
  });

  test('a second signal, a second or more after the first, exits at once with 1', async () => {
    const server = await startBuiltServer({
      DATABASE_URL: 'memory://',
      INSTITUTION_CREDENTIALS: JSON.stringify([credential]),
      LOG_LEVEL: 'info',
    });
    const socket = await hangingRequest(server.baseUrl); // holds the drain for 10 s
    // The same stop: under npm start, Ctrl-C reaches the server twice, from the terminal and
    // forwarded by npm a moment later.
    server.child.kill('SIGTERM');
    server.child.kill('SIGINT');
    // The server's clock from when it took the first signal: a later one is a second signal.
    const stopping = await loggedLine(server, 'stopping: draining in-flight requests');
    const tookFirst = Date.parse(String(stopping.time));
    await waitFor(() => Date.now() > tookFirst + repeatWindowMs, {
      timeoutMs: repeatWindowMs + 10_000,
      message: 'the repeat window to pass',
    });
    expect(server.child.exitCode).toBeNull(); // still draining
    const second = performance.now();
    server.child.kill('SIGINT');
    expect(await server.exited).toBe(1);
    socket.destroy();
    expect(performance.now() - second).toBeLessThan(2_000);
  });

  test('a signal during start-up, once the storage is opening, stops cleanly', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'reference-server-start-signal-'));
    try {
      const child = spawn(process.execPath, [mainJs], {
        env: { PATH: process.env.PATH ?? '', PORT: '0', DATABASE_URL: dir, LOG_LEVEL: 'debug' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const exited = new Promise((resolve) =>
        child.once('exit', (code, signal) => resolve(code ?? signal)),
      );
      let out = '';
      child.stdout.on('data', (chunk) => {
        out += chunk;
        if (out.includes('opening the storage') && child.signalCode === null) {
          child.kill('SIGTERM');
        }
      });
      expect(await exited).toBe(0);
      expect(out).toContain('"msg":"stopped"');
      // and the directory opens again
      const again = await startBuiltServer({ DATABASE_URL: dir });
      again.child.kill('SIGTERM');
      expect(await again.exited).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('METRICS_PORT: the metrics on a listener of their own, printed in the banner, closed at the stop', async () => {
    const server = await startBuiltServer({ DATABASE_URL: 'memory://', METRICS_PORT: '0' });
    const metricsUrl = /metrics: (http:\/\/localhost:\d+\/metrics)/.exec(server.stdout())?.[1];
    expect(metricsUrl).toBeDefined();
    const url = (metricsUrl ?? '').replace('localhost', '127.0.0.1');
    try {
      await fetch(`${server.baseUrl}/healthz`);
      const scraped = await (await fetch(url)).text();
      expect(scraped).toContain('institution_api_requests_total{operation="other",status="200"} 1');
      expect(scraped).toContain('institution_api_database_up 1');
      expect((await fetch(`${server.baseUrl}/metrics`)).status).toBe(404);
    } finally {
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    }
    await expect(fetch(url)).rejects.toThrow();
  });

  test('an invalid variable is a clear start-up error, exit 1, no stack trace', () => {
    const result = spawnSync(process.execPath, [mainJs], {
      env: { PATH: process.env.PATH ?? '', PORT: 'eighty', SIGNATURE_ENCODING: 'hexadecimal' },
      encoding: 'utf8',
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('PORT must be an integer from 0 to 65535, not "eighty".');
    expect(result.stderr).toContain('SIGNATURE_ENCODING must be one of hex, base64');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
