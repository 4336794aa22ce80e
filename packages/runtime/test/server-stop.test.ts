/**
 * The stop the reference server and the mock server share: SHUTDOWN_DRAIN_MS read alike, and a
 * drain that lets a request in flight finish (its answer closing the connection) but cuts one
 * whose body never finishes once the deadline passes.
 */
import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { drainable, parseShutdownDrainMs } from '../src/server-stop.js';

describe('parseShutdownDrainMs', () => {
  it.each([
    [undefined, 10_000],
    ['0', 0],
    ['500', 500],
    ['600000', 600_000],
  ])('SHUTDOWN_DRAIN_MS=%s is %i ms', (value, ms) => {
    expect(parseShutdownDrainMs(value)).toBe(ms);
  });

  it.each(['10s', '-1', '1.5', '600001', '99999999', ''])(
    'SHUTDOWN_DRAIN_MS=%j is refused, naming the variable and the value',
    (value) => {
      expect(() => parseShutdownDrainMs(value)).toThrow(
        `SHUTDOWN_DRAIN_MS must be an integer from 0 to 600000, not "${value}".`,
      );
    },
  );
});

describe('drainable', () => {
  let server: Server | undefined;
  afterEach(() => {
    server?.closeAllConnections();
    server?.close();
  });

  /** A server answering each request once its body has arrived, drained by `drainable`. */
  async function start() {
    server = createServer((request, response) => {
      request.resume().once('end', () => response.end('done'));
    });
    const requests = drainable(server);
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    return { requests, port: (server.address() as AddressInfo).port };
  }

  /** A POST whose headers and first body byte are sent, the second byte not yet. */
  async function halfSent(port: number): Promise<{ socket: Socket; answer: () => string }> {
    const socket = connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    let answer = '';
    socket.setEncoding('utf8').on('data', (text: string) => {
      answer += text;
    });
    socket.on('error', () => {});
    socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{');
    return { socket, answer: () => answer };
  }

  it('lets a request in flight finish within the deadline, its answer closing the connection', async () => {
    const { requests, port } = await start();
    const call = await halfSent(port);
    await expect.poll(() => requests.inFlight).toBe(1);
    let deadlinePassed = false;
    const drained = requests.drain(10_000, () => {
      deadlinePassed = true;
    });
    call.socket.write('}');
    await drained;
    // the answer was written before the connection closed; this end reads it a moment later
    await expect.poll(() => call.answer()).toMatch(/done$/);
    expect(call.answer()).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(call.answer()).toMatch(/\r\nConnection: close\r\n/i);
    expect(deadlinePassed).toBe(false);
    expect(server?.listening).toBe(false);
  });

  it('cuts a request that never finishes once the deadline passes, and says so', async () => {
    const { requests, port } = await start();
    const call = await halfSent(port);
    await expect.poll(() => requests.inFlight).toBe(1);
    let deadlinePassed = false;
    const started = performance.now();
    await requests.drain(300, () => {
      deadlinePassed = true;
    });
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(deadlinePassed).toBe(true);
    expect(call.answer()).toBe('');
    await expect.poll(() => call.socket.readableEnded || call.socket.destroyed).toBe(true);
  });

  it('closes an idle keep-alive connection at once', async () => {
    const { requests, port } = await start();
    const answer = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' });
    expect(await answer.text()).toBe('done');
    const started = performance.now();
    await requests.drain(10_000);
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
