/**
 * The import's `node:http` transport against real sockets: what the client hands it arrives
 * byte for byte, the answer comes back as the client reads it, connections are kept between
 * rows, and failures look like `fetch`'s. Then the client on it, end to end. (Its check of an
 * https service's certificate, which needs a certificate made by openssl, is in the system tier.)
 */
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { createUsersClient } from '@institution-api/client';
import {
  sendJson,
  startServer,
  type TestServer,
} from '@institution-api/test-support/recording-server';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createNodeHttpTransport,
  type NodeHttpTransport,
} from '../../src/import/node-http-transport.js';
import { closed, emptyPost, listenOnLoopback, signal } from './sockets.js';

let server: TestServer | undefined;
let transport: NodeHttpTransport | undefined;
afterEach(async () => {
  transport?.close();
  await server?.close();
  server = transport = undefined;
});

describe('the import transport on node:http', () => {
  it('sends the method, URL, headers and exact body bytes, and returns status, headers and body text', async () => {
    server = await startServer((_request, response) =>
      sendJson(response, 201, { id: 'é-1' }, { 'Retry-After': '3' }),
    );
    transport = createNodeHttpTransport({ sockets: 2 });
    const body = '{"firstName":"Akosua","note":"ɛ ɔ"}';
    const answer = await transport.send(
      {
        method: 'POST',
        url: `${server.url}/api/v1/external/users`,
        body,
        headers: { 'Content-Type': 'application/json', Authorization: 'pk:sig' },
      },
      signal(),
    );
    expect(server.requests).toEqual([
      expect.objectContaining({
        method: 'POST',
        url: '/api/v1/external/users',
        body,
        headers: expect.objectContaining({
          authorization: 'pk:sig',
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
        }),
      }),
    ]);
    expect(answer.response.status).toBe(201);
    expect(answer.response.headers.get('retry-after')).toBe('3');
    expect(JSON.parse(answer.text)).toEqual({ id: 'é-1' });
  });

  it('keeps connections open from one request to the next, no more than `sockets` of them', async () => {
    let connections = 0;
    const http = createHttpServer((request, response) => {
      request.resume();
      request.on('end', () => response.end('{}'));
    });
    http.on('connection', () => connections++);
    const port = await listenOnLoopback(http);
    const { send, close } = createNodeHttpTransport({ sockets: 2 });
    const exchange = {
      method: 'POST' as const,
      url: `http://127.0.0.1:${port}/`,
      headers: {},
      body: '{}',
    };
    const status = () => send(exchange, signal()).then((answer) => answer.response.status);
    try {
      for (let round = 0; round < 5; round++) {
        expect(await Promise.all([status(), status(), status(), status()])).toEqual([
          200, 200, 200, 200,
        ]);
      }
      expect(connections).toBe(2);
    } finally {
      close();
      await closed(http);
    }
  });

  it('rejects as fetch does when nothing listens: TypeError "fetch failed", the system code on its cause', async () => {
    const free = createServer();
    const port = await listenOnLoopback(free);
    await closed(free);
    transport = createNodeHttpTransport({ sockets: 1 });
    const sent = transport.send(emptyPost(`http://127.0.0.1:${port}/`), signal());
    await expect(sent).rejects.toThrow(TypeError);
    await expect(sent).rejects.toMatchObject({
      message: 'fetch failed',
      cause: { code: 'ECONNREFUSED' },
    });
  });

  it('rejects, never throws out of the socket, for a status no Response can carry', async () => {
    const raw = createServer((socket) => {
      socket.once('data', () => socket.end('HTTP/1.1 999 Odd\r\nContent-Length: 2\r\n\r\n{}'));
    });
    const port = await listenOnLoopback(raw);
    transport = createNodeHttpTransport({ sockets: 1 });
    try {
      await expect(
        transport.send(emptyPost(`http://127.0.0.1:${port}/`), signal()),
      ).rejects.toMatchObject({ message: 'fetch failed', cause: expect.any(RangeError) });
    } finally {
      await closed(raw);
    }
  });

  it('goes through HTTP_PROXY when Node is told to use the proxy of the environment, as fetch does', async () => {
    const seen: string[] = [];
    const proxy = createHttpServer((request, response) => {
      seen.push(`${request.method} ${request.url}`);
      request.resume();
      request.on('end', () => response.end('{"via":"proxy"}'));
    });
    const port = await listenOnLoopback(proxy);
    const exchange = emptyPost('http://institution.invalid/api/v1/external/users');
    const env = { HTTP_PROXY: `http://127.0.0.1:${port}` };
    try {
      transport = createNodeHttpTransport({
        sockets: 1,
        env: { ...env, NODE_USE_ENV_PROXY: '1' },
        execArgv: [],
      });
      expect((await transport.send(exchange, signal())).text).toBe('{"via":"proxy"}');
      expect(seen).toEqual(['POST http://institution.invalid/api/v1/external/users']);
      transport.close();
      // Without NODE_USE_ENV_PROXY, HTTP_PROXY alone is ignored, as fetch ignores it.
      transport = createNodeHttpTransport({ sockets: 1, env, execArgv: [] });
      await expect(transport.send(exchange, signal())).rejects.toMatchObject({
        message: 'fetch failed',
        cause: { code: expect.stringMatching(/^(ENOTFOUND|EAI_AGAIN)$/) },
      });
      expect(seen).toHaveLength(1);
    } finally {
      await closed(proxy);
    }
  });

  it('ends the request when the attempt is aborted', async () => {
    server = await startServer(() => {}); // never answers
    transport = createNodeHttpTransport({ sockets: 1 });
    const controller = new AbortController();
    const sent = transport.send(emptyPost(`${server.url}/`), controller.signal);
    await expect.poll(() => server?.requests.length).toBe(1);
    controller.abort();
    await expect(sent).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('carries the client: signed, retried after a 503 with Retry-After, read into the canonical user', async () => {
    const user = { id: '0b0e7a3c-5d9f-4c1e-9a51-3f2d7c6b8e10', first_name: 'Akosua' };
    server = await startServer((_request, response, n) =>
      n === 0
        ? sendJson(response, 503, { title: 'Unavailable', status: 503 }, { 'Retry-After': '0' })
        : sendJson(response, 201, user),
    );
    transport = createNodeHttpTransport({ sockets: 1 });
    const client = createUsersClient({
      baseUrl: server.url,
      publicKey: 'pk_test',
      secretKey: 'sk_test',
      retry: { baseDelayMs: 1 },
      transport: transport.send,
    });
    const result = await client.createUser({ firstName: 'Akosua' } as never);
    expect(result.error).toBeUndefined();
    expect(result.data?.created).toBe(true);
    expect(result.data?.raw).toEqual(user);
    expect(server.requests).toHaveLength(2);
    const [first, second] = server.requests;
    expect(second?.body).toBe(first?.body);
    expect(second?.headers.authorization).toBe(first?.headers.authorization);
    expect(first?.headers.authorization).toMatch(/^pk_test:[0-9a-f]{64}$/);
  });
});
