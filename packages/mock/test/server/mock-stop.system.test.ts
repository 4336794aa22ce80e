/**
 * `institution-api-mock` stops as the reference server does: a signal to the PID a user holds
 * (`npx`'s, as the README starts it) stops it and frees its port, leaving no process behind; the
 * requests in flight get `SHUTDOWN_DRAIN_MS` to finish, and a request that never finishes does not
 * hold the stop any longer.
 */
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import {
  type ListeningProcess,
  startListeningProcess,
} from '@institution-api/test-support/listening-process';
import { afterEach, describe, expect, it } from 'vitest';
import { INSTITUTIONS } from '../support/institutions.js';
import { startMockProcess } from '../support/mock-process.js';
import { commandLine, descendantsOf, isRunning } from '../support/process-tree.js';

/** The repository's root, where `node_modules/.bin/institution-api-mock` is linked. */
const root = fileURLToPath(new URL('../../../../', import.meta.url));

/** The process groups of the `npx` runs, stopped after each test in case one failed half-way. */
const groups: number[] = [];
afterEach(() => {
  for (const group of groups.splice(0)) {
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      // ESRCH: nothing of it is left, as it should be
    }
  }
});

/** `npx institution-api-mock --port 0`, from the root, as a user's shell runs it (not under npm). */
async function startThroughNpx(): Promise<ListeningProcess> {
  const env: NodeJS.ProcessEnv = { INSTITUTION_CREDENTIALS: JSON.stringify(INSTITUTIONS) };
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('npm_')) env[name] = value;
  }
  const mock = await startListeningProcess(['institution-api-mock', '--port', '0'], env, {
    command: 'npx',
    cwd: root,
    detached: true,
  });
  if (mock.child.pid !== undefined) groups.push(mock.child.pid);
  return mock;
}

/** Whether nothing listens on `port` of 127.0.0.1 any more (a connection is refused). */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

/** An unsigned create to `url`: the mock's one `401`, once MSW and the validators are loaded. */
async function answered(url: string): Promise<void> {
  expect((await fetch(`${url}/api/v1/external/users`, { method: 'POST' })).status).toBe(401);
}

/** A create whose headers and the first byte of its body have arrived, the rest never sent. */
async function halfSentCreate(port: number): Promise<{ socket: Socket; answer: () => string }> {
  const socket = connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  let answer = '';
  socket.setEncoding('utf8').on('data', (text: string) => {
    answer += text;
  });
  socket.on('error', () => {});
  socket.write(
    'POST /api/v1/external/users HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{',
  );
  return { socket, answer: () => answer };
}

describe('institution-api-mock through npx, stopped as a user stops it', () => {
  it.each([
    // `kill <pid>` of `npx … &`: npm passes it to its `sh -c`, which dies without passing it on;
    // the mock sees npm gone and stops
    ['SIGTERM', 'the npx PID', 'npm, which started it, has exited (SIGTERM to npx?): stopping.'],
    // Ctrl-C in a terminal: the whole foreground process group, the mock included, gets it
    ['SIGINT', "npx's process group", ''],
  ] as const)(
    '%s to %s stops the mock: its port is freed, no process of it is left',
    { timeout: 60_000 },
    async (signal, to, said) => {
      const npx = await startThroughNpx();
      const pid = npx.child.pid ?? 0;
      const port = Number(new URL(npx.url).port);
      const started = descendantsOf(pid);
      // npm runs the bin through `sh -c`, whose child is the mock itself
      expect(started.map(commandLine).join('\n')).toMatch(/node .*institution-api-mock --port 0/);
      await answered(npx.url);

      process.kill(to === 'the npx PID' ? pid : -pid, signal);
      await expect.poll(() => refused(port), { timeout: 10_000, interval: 50 }).toBe(true);
      await expect
        .poll(() => [pid, ...started].filter(isRunning), { timeout: 10_000, interval: 50 })
        .toEqual([]);
      expect(npx.output()).toContain(said);
    },
  );
});

describe('institution-api-mock drains as the reference server does (SHUTDOWN_DRAIN_MS)', () => {
  it('a request in flight finishes within the drain, answered with Connection: close, then it exits 0', {
    timeout: 60_000,
  }, async () => {
    const mock = await startMockProcess(INSTITUTIONS);
    const port = Number(new URL(mock.url).port);
    await answered(mock.url);
    const create = await halfSentCreate(port);
    mock.child.kill('SIGTERM');
    // The signal is taken: no new connection is accepted, while the request in flight is held.
    await expect.poll(() => refused(port), { timeout: 10_000, interval: 20 }).toBe(true);
    expect(mock.child.exitCode).toBeNull();
    create.socket.write('}');
    expect(await mock.exited).toEqual([0, null]);
    expect(create.answer()).toMatch(/^HTTP\/1\.1 401 /);
    expect(create.answer()).toMatch(/\r\nconnection: close\r\n/i);
  });

  it.each([
    [500, 5_000],
    [0, 5_000],
  ])(
    'a body that never finishes does not hold it: SHUTDOWN_DRAIN_MS=%i, it exits 0 within %i ms more',
    { timeout: 60_000 },
    async (drainMs, marginMs) => {
      const mock = await startMockProcess(INSTITUTIONS, { SHUTDOWN_DRAIN_MS: String(drainMs) });
      const port = Number(new URL(mock.url).port);
      await answered(mock.url); // MSW and the validators loaded: the stop is timed alone
      const create = await halfSentCreate(port);
      const stopped = performance.now();
      mock.child.kill('SIGTERM');
      await expect
        .poll(() => mock.child.exitCode, { timeout: drainMs + marginMs, interval: 20 })
        .toBe(0);
      const stopMs = performance.now() - stopped;
      console.log(
        `stop with a half-sent body, SHUTDOWN_DRAIN_MS=${drainMs}: ${Math.round(stopMs)} ms`,
      );
      // It waited for the request as long as the drain allows, then cut it.
      expect(stopMs).toBeGreaterThanOrEqual(drainMs - 50);
      expect(await refused(port)).toBe(true);
      expect(create.answer()).toBe('');
      create.socket.destroy();
    },
  );

  it.each(['10s', '-1', '600001'])(
    'refuses SHUTDOWN_DRAIN_MS=%s, naming it, exit 2',
    { timeout: 60_000 },
    async (value) => {
      await expect(startMockProcess(INSTITUTIONS, { SHUTDOWN_DRAIN_MS: value })).rejects.toThrow(
        /exited \(2\)[\s\S]*SHUTDOWN_DRAIN_MS must be an integer from 0 to 600000/,
      );
    },
  );
});
