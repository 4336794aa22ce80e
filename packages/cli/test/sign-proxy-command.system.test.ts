/**
 * `institution-api sign-proxy`: what an HTTP tool pointed at it relies on. The proxy runs
 * in-process (its `stop` promise standing in for SIGTERM) in front of a real upstream HTTP server
 * that records the raw bytes it receives; the last tests run the built executable, stop it with
 * SIGTERM, and send curl through it to the reference server.
 */
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { formatAuthorization, sign } from '@institution-api/signing';
import { acceptsConnections, freePort } from '@institution-api/test-support/free-port';
import { startListeningProcess } from '@institution-api/test-support/listening-process';
import { verdictOf } from '@institution-api/test-support/message-signature-verdict';
import { startServer } from '@institution-api/test-support/recording-server';
import {
  type RunningServer,
  startReferenceServer,
} from '@institution-api/test-support/reference-server';
import { testKeys } from '@institution-api/test-support/test-keys';
import { userBody } from '@institution-api/test-support/user-bodies';
import { waitFor } from '@institution-api/test-support/wait-for';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../src/main.js';
import { signProxy, signProxyUsage } from '../src/sign-proxy-command.js';
import { maxBufferedBodyBytes } from '../src/sign-proxy-server.js';

const ENV = {
  INSTITUTION_PUBLIC_KEY: testKeys.publicKey,
  INSTITUTION_SECRET_KEY: testKeys.secretKey,
};

/** Everything printed by the proxies of a test, checked for the secret after each test. */
let printed = '';
const running: { stop(): Promise<number> }[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((proxy) => proxy.stop()));
  expect(printed).not.toContain(testKeys.secretKey);
  printed = '';
});

/** Runs `sign-proxy <args>` in-process; resolves once it prints where it listens. */
async function startProxy(args: string[], env: Record<string, string | undefined> = ENV) {
  let stdout = '';
  let stderr = '';
  let stop = () => {};
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  let listening = (_url: string) => {};
  const url = new Promise<string>((resolve) => {
    listening = resolve;
  });
  const exit = signProxy(args, {
    env,
    stdout: (text) => {
      stdout += text;
      printed += text;
      const match = /^listening on (http:\/\/\S+)\n/.exec(stdout);
      if (match?.[1]) listening(match[1]);
    },
    stderr: (text) => {
      stderr += text;
      printed += text;
    },
    stop: stopped,
  });
  const proxy = {
    url: await Promise.race([
      url,
      exit.then((code) => {
        throw new Error(`sign-proxy exited ${code}: ${stderr}`);
      }),
    ]),
    stdout: () => stdout,
    stderr: () => stderr,
    stop: () => {
      stop();
      return exit;
    },
  };
  running.push(proxy);
  return proxy;
}

/** Runs `sign-proxy <args>` expecting it to stop at once (a usage error). */
async function runToExit(args: string[], env: Record<string, string | undefined> = ENV) {
  let stdout = '';
  let stderr = '';
  const code = await signProxy(args, {
    env,
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    stop: Promise.resolve(),
  });
  printed += stdout + stderr;
  return { code, stdout, stderr };
}

/** A request through node:http, to see the answer's raw headers and bytes as they arrive. */
function rawRequest(
  url: string,
  options: { method: string; headers?: Record<string, string>; body?: Buffer | string },
) {
  return new Promise<{
    status: number;
    statusMessage: string;
    rawHeaders: string[];
    body: Buffer;
  }>((resolve, reject) => {
    const req = request(url, { method: options.method, headers: options.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          statusMessage: res.statusMessage ?? '',
          rawHeaders: res.rawHeaders,
          body: Buffer.concat(chunks),
        }),
      );
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** The body of the tests: pretty-printed, non-ASCII, as a tool might send it. */
const prettyBody = Buffer.from(
  `${JSON.stringify({ ...userBody('MomoAccountUser'), firstName: 'Adwoa ✓', lastName: 'Mensah-Bonsu' }, null, 2)}\n`,
);

describe('sign-proxy: each request signed and forwarded', () => {
  it('signs the exact bytes it receives, replaces any Authorization, and forwards the rest', async () => {
    const upstream = await startServer((_, res) => res.writeHead(201).end('{}'));
    const proxy = await startProxy(['--target', upstream.url]);
    expect(proxy.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(proxy.stdout()).toBe(`listening on ${proxy.url}\n`);

    const answer = await fetch(`${proxy.url}/api/v1/external/users?trace=1`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Authorization: 'someone-else:0000',
        'X-Request-Id': 'r-1',
      },
      body: prettyBody,
    });
    expect(answer.status).toBe(201);

    const [received] = upstream.requests;
    expect(received?.method).toBe('POST');
    expect(received?.url).toBe('/api/v1/external/users?trace=1');
    expect(received?.bytes.equals(prettyBody)).toBe(true);
    expect(received?.headers.authorization).toBe(
      formatAuthorization(testKeys, await sign(prettyBody, testKeys.secretKey)),
    );
    expect(received?.headers['content-type']).toBe('application/json');
    expect(received?.headers['x-request-id']).toBe('r-1');
    expect(received?.headers['content-length']).toBe(String(prettyBody.length));
    expect(received?.headers.host).toBe(new URL(upstream.url).host);
    expect(proxy.stderr()).toContain('POST /api/v1/external/users?trace=1 -> 201');
    // and a message signature for the URL the target received, over the same bytes
    if (received === undefined) return;
    expect(verdictOf({ ...received, url: `${upstream.url}${received.url}` })).toMatchObject({
      status: 'valid',
    });
    await upstream.close();
  });

  it("signs the message for the target's URL (its path prefix included), replacing the caller's", async () => {
    const upstream = await startServer((_, res) => res.writeHead(201).end('{}'));
    const proxy = await startProxy(['--target', `${upstream.url}/base/`]);
    await fetch(`${proxy.url}/api/v1/external/users`, {
      method: 'POST',
      headers: {
        'Signature-Input': 'sig1=("@method");created=1;nonce="x";keyid="someone-else"',
        Signature: 'sig1=:AAAA:',
        'Content-Digest': 'sha-256=:AAAA:',
      },
      body: prettyBody,
    });
    const [received] = upstream.requests;
    if (received === undefined) throw new Error('nothing forwarded');
    expect(received.url).toBe('/base/api/v1/external/users');
    const sentTo = `${upstream.url}/base/api/v1/external/users`;
    expect(verdictOf({ ...received, url: sentTo })).toMatchObject({ status: 'valid' });
    // the signature is good for the target's URL only
    const proxyPath = `${upstream.url}/api/v1/external/users`;
    expect(verdictOf({ ...received, url: proxyPath })).toMatchObject({ status: 'invalid' });
    await upstream.close();
  });

  it('signs a GET for its method and path, without Content-Digest; each request with a nonce of its own', async () => {
    const upstream = await startServer((_, res) => res.writeHead(200).end());
    const proxy = await startProxy(['--target', upstream.url]);
    await fetch(`${proxy.url}/things?a=1`);
    await fetch(`${proxy.url}/things?a=1`);
    const [first, second] = upstream.requests;
    if (first === undefined || second === undefined) throw new Error('expected two requests');
    expect(first.headers['content-digest']).toBeUndefined();
    expect(first.headers['signature-input']).toMatch(/^sig1=\("@method" "@path"\);/);
    const verdicts = [first, second].map((request) =>
      verdictOf({ ...request, url: `${upstream.url}${request.url}` }),
    );
    expect(verdicts).toMatchObject([{ status: 'valid' }, { status: 'valid' }]);
    expect(second.headers['signature-input']).not.toBe(first.headers['signature-input']);
    await upstream.close();
  });

  it('--no-message-signatures signs with Authorization alone', async () => {
    const upstream = await startServer((_, res) => res.writeHead(201).end('{}'));
    const proxy = await startProxy(['--target', upstream.url, '--no-message-signatures']);
    await fetch(`${proxy.url}/api/v1/external/users`, { method: 'POST', body: prettyBody });
    const [received] = upstream.requests;
    expect(received?.headers.authorization).toBe(
      formatAuthorization(testKeys, await sign(prettyBody, testKeys.secretKey)),
    );
    expect(received?.headers['signature-input']).toBeUndefined();
    expect(received?.headers.signature).toBeUndefined();
    expect(received?.headers['content-digest']).toBeUndefined();
    await upstream.close();
  });

  it('adds a path prefix of the target, and reads INSTITUTION_API_URL without --target', async () => {
    const upstream = await startServer((_, res) => res.writeHead(200).end());
    const proxy = await startProxy([], { ...ENV, INSTITUTION_API_URL: `${upstream.url}/base/` });
    await fetch(`${proxy.url}/api/v1/external/users/42`, { method: 'PUT', body: '{}' });
    expect(upstream.requests[0]?.url).toBe('/base/api/v1/external/users/42');
    await upstream.close();
  });

  it('honours --algorithm and --encoding', async () => {
    const upstream = await startServer((_, res) => res.writeHead(200).end());
    const proxy = await startProxy([
      '--target',
      upstream.url,
      '--algorithm',
      'sha512',
      '--encoding',
      'base64',
    ]);
    await fetch(`${proxy.url}/x`, { method: 'POST', body: prettyBody });
    const options = { algorithm: 'sha512', encoding: 'base64' } as const;
    expect(upstream.requests[0]?.headers.authorization).toBe(
      `${testKeys.publicKey}:${await sign(prettyBody, testKeys.secretKey, options)}`,
    );
    await upstream.close();
  });

  it('signs a GET over its JSON-stringified query, as the client does', async () => {
    const upstream = await startServer((_, res) => res.writeHead(200).end());
    const proxy = await startProxy(['--target', upstream.url]);
    await fetch(`${proxy.url}/things?b=2&a=%C3%A9`);
    await fetch(`${proxy.url}/things`);
    const [withQuery, without] = upstream.requests;
    expect(withQuery?.headers.authorization).toBe(
      `${testKeys.publicKey}:${await sign('{"b":"2","a":"é"}', testKeys.secretKey)}`,
    );
    expect(without?.headers.authorization).toBe(
      `${testKeys.publicKey}:${await sign('{}', testKeys.secretKey)}`,
    );
    await upstream.close();
  });
});

/**
 * One request whose request line carries `target` exactly as given (fetch and node:http would
 * normalize or refuse some of them), answered on a connection of its own; `Host` is the proxy's
 * unless `headers` give one.
 */
function requestLine(
  proxyUrl: string,
  method: string,
  target: string,
  body = '',
  headers: Record<string, string> = {},
) {
  return new Promise<{ status: number; contentType: string | undefined; body: string }>(
    (resolve, reject) => {
      const { hostname, port } = new URL(proxyUrl);
      const socket = connect(Number(port), hostname);
      let received = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        received += chunk;
      });
      socket.on('error', reject);
      socket.on('end', () => {
        const [head = '', rest = ''] = received.split('\r\n\r\n', 2);
        resolve({
          status: Number(head.split(' ')[1]),
          contentType: /^content-type: *(.*)$/im.exec(head)?.[1],
          body: rest,
        });
      });
      // written, not ended: the proxy closes the connection after its answer (Connection: close)
      const fields = { Host: new URL(proxyUrl).host, ...headers };
      const head = Object.entries(fields)
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('');
      socket.write(
        `${method} ${target} HTTP/1.1\r\n${head}Connection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
    },
  );
}

describe('sign-proxy: it sends to its target only', () => {
  it.each([
    ['', '/api/v1/external/users?x=1', '/api/v1/external/users?x=1'],
    ['/', '/api/v1/external/users', '/api/v1/external/users'],
    ['/base', '/api/v1/external/users', '/base/api/v1/external/users'],
    ['/base/', '/api/v1/external/users', '/base/api/v1/external/users'],
    ['/base//', '/', '/base/'],
    // an authority-looking text after the first segment, or in the query, is only a path
    [
      '/base',
      '/users/127.0.0.1:1/x?next=//127.0.0.1:1/',
      '/base/users/127.0.0.1:1/x?next=//127.0.0.1:1/',
    ],
    // an encoded slash inside the path, and a '..' that stays inside it, are forwarded as sent
    ['/base', '/users/a%2F%2Fb', '/base/users/a%2F%2Fb'],
    ['/base', '/users/a/../b', '/base/users/a/../b'],
  ])(
    'target path %j with request target %j: the target receives %j',
    async (basePath, sent, received) => {
      const upstream = await startServer((_, res) => res.writeHead(200).end());
      const proxy = await startProxy(['--target', `${upstream.url}${basePath}`]);
      const answer = await requestLine(proxy.url, 'POST', sent, '{}');
      expect(answer.status).toBe(200);
      expect(upstream.requests.map((request) => request.url)).toEqual([received]);
      expect(upstream.requests[0]?.headers.host).toBe(new URL(upstream.url).host);
      await upstream.close();
    },
  );

  /** The request targets an attacker would try, and the words of the reason each gets. */
  const refused = (other: string): [string, string, string][] => [
    ['POST', `//${other}/steal`, "starts with '//'"],
    ['POST', `//${other}`, "starts with '//'"],
    ['POST', `/%2F%2F${other}/steal`, "starts with '//'"],
    ['POST', `/%2f/${other}/steal`, "starts with '//'"],
    ['POST', `/\\${other}/steal`, 'backslash'],
    ['POST', `/\\/${other}/steal`, 'backslash'],
    ['POST', '/api\\..\\..\\steal', 'backslash'],
    ['POST', `/%5C${other}/steal`, "starts with '//'"],
    ['POST', '/..', "'..'"],
    ['POST', '/../steal', "'..'"],
    ['POST', '/api/v1/../../../steal', "'..'"],
    ['POST', '/%2e%2e/steal', "'..'"],
    ['POST', '/%2E%2e/steal', "'..'"],
    ['POST', '/.%2e/steal', "'..'"],
    ['POST', '/api/..%2F..%2Fsteal', "'..'"],
    ['POST', '/api%2F..%2F..%2Fsteal', "'..'"],
    ['POST', '/api%5C..%5C..%5Csteal', "'..'"],
    ['POST', '/api//..//../steal', "'..'"],
    ['POST', '/%252e%252e/steal', "'..'"],
    ['POST', '/..;/steal', "'..'"],
    ['OPTIONS', '*', "starting with '/'"],
    ['POST', `${other}/steal`, "a path starting with '/'"],
    ['CONNECT', other, 'CONNECT'],
  ];

  it('refuses request targets that name another host or climb out of its path: 400, nothing sent anywhere', async () => {
    const upstream = await startServer((_, res) => res.writeHead(200).end());
    // a listener on another loopback port: where each of these would try to send the request
    const elsewhere = await startServer((_, res) => res.writeHead(200).end());
    const other = new URL(elsewhere.url).host;
    const proxy = await startProxy(['--target', `${upstream.url}/base`]);
    for (const [method, target, reason] of refused(other)) {
      const answer = await requestLine(proxy.url, method, target, '{"a":1}');
      expect({ target, status: answer.status }).toEqual({ target, status: 400 });
      expect({ target, type: answer.contentType }).toEqual({
        target,
        type: 'application/problem+json',
      });
      const problem = JSON.parse(answer.body) as Record<string, unknown>;
      expect(problem).toMatchObject({
        type: 'urn:institution-api:problem:sign-proxy',
        status: 400,
      });
      expect(problem.detail).toContain(reason);
    }
    expect(elsewhere.requests).toEqual([]);
    expect(upstream.requests).toEqual([]);
    expect(proxy.stderr()).toContain(`POST //${other}/steal -> 400 (not forwarded:`);
    // and a proper request still goes through, to the target
    expect((await requestLine(proxy.url, 'POST', '/api/v1/external/users', '{}')).status).toBe(200);
    expect(upstream.requests.map((request) => request.url)).toEqual([
      '/base/api/v1/external/users',
    ]);
    await Promise.all([upstream.close(), elsewhere.close()]);
  });
});

describe('sign-proxy: it signs only what is addressed to it', () => {
  /** Each request and what the proxy must do with it, `PORT` being the proxy's port. */
  const cases: [string, Record<string, string>, string, number, boolean][] = [
    // [request target, headers, what it is, status, forwarded]
    ['/api/v1/external/users', { Host: '127.0.0.1:PORT' }, 'its address', 201, true],
    ['/api/v1/external/users', { Host: 'localhost:PORT' }, 'localhost', 201, true],
    ['/api/v1/external/users', { Host: 'LocalHost:PORT' }, 'localhost in capitals', 201, true],
    ['/api/v1/external/users', { Host: '[::1]:PORT' }, 'IPv6 loopback', 201, true],
    ['/api/v1/external/users', { Host: 'signer.internal:PORT' }, 'an --allow-host name', 201, true],
    // DNS rebinding: a page of attacker.example, whose name resolves to 127.0.0.1
    ['/api/v1/external/users', { Host: 'attacker.example' }, 'a rebound name', 421, false],
    [
      '/api/v1/external/users',
      { Host: 'attacker.example:PORT' },
      'a rebound name, port',
      421,
      false,
    ],
    ['/api/v1/external/users', { Host: '127.0.0.1:1' }, 'another port', 421, false],
    ['/api/v1/external/users', { Host: 'localhost.:PORT' }, 'a name with a dot', 421, false],
    ['/api/v1/external/users', { Host: '127.0.0.1:PORT/x' }, 'a path in Host', 421, false],
    ['/api/v1/external/users', { Host: 'x@127.0.0.1:PORT' }, 'user info in Host', 421, false],
    // a page of another site calling the proxy by its address
    [
      '/api/v1/external/users',
      { Origin: 'http://attacker.example' },
      'a cross-site Origin',
      403,
      false,
    ],
    ['/api/v1/external/users', { Origin: 'null' }, 'an opaque Origin', 403, false],
    ['/api/v1/external/users', { Origin: 'https://127.0.0.1:PORT' }, 'https Origin', 403, false],
    ['/api/v1/external/users', { Origin: 'http://127.0.0.1:PORT' }, 'its own Origin', 201, true],
    ['/api/v1/external/users', { Origin: 'http://localhost:PORT' }, 'own, by name', 201, true],
    [
      '/api/v1/external/users',
      { Origin: 'https://docs.example.com' },
      'an --allow-origin origin',
      201,
      true,
    ],
    // absolute-form: the target's authority wins over Host (RFC 9112 section 3.2.2)
    ['http://127.0.0.1:PORT/api/v1/external/users', {}, 'absolute-form to itself', 201, true],
    [
      'http://localhost:PORT/api/v1/external/users',
      { Host: 'attacker.example' },
      'absolute-form to itself, another Host',
      201,
      true,
    ],
    [
      'http://attacker.example/api/v1/external/users',
      {},
      'absolute-form to another host',
      421,
      false,
    ],
    ['https://127.0.0.1:PORT/api/v1/external/users', {}, 'absolute-form, https', 421, false],
  ];

  it.each(cases)(
    'target %s with %j (%s): %i, forwarded: %s',
    async (target, headers, _what, status, forwarded) => {
      const upstream = await startServer((_, res) => res.writeHead(201).end('{}'));
      const proxy = await startProxy([
        '--target',
        `${upstream.url}/base`,
        '--allow-host',
        'signer.internal',
        '--allow-origin',
        'https://docs.example.com',
      ]);
      const { port } = new URL(proxy.url);
      const withPort = (text: string) => text.replace('PORT', port);
      const answer = await requestLine(
        proxy.url,
        'POST',
        withPort(target),
        '{}',
        Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, withPort(value)])),
      );
      expect(answer.status).toBe(status);
      expect(upstream.requests.map((request) => request.url)).toEqual(
        forwarded ? ['/base/api/v1/external/users'] : [],
      );
      if (!forwarded) {
        expect(answer.contentType).toBe('application/problem+json');
        const problem = JSON.parse(answer.body) as Record<string, unknown>;
        expect(problem).toMatchObject({ type: 'urn:institution-api:problem:sign-proxy', status });
        // it names what it refused
        const refused = withPort(
          headers.Origin ?? (target.startsWith('/') ? (headers.Host ?? '') : target),
        );
        expect(problem.detail).toContain(refused.replace(/(:\/\/[^/]+).*$/, '$1'));
        expect(problem.detail).toContain('Nothing was signed or forwarded.');
      }
      await upstream.close();
    },
  );

  it('logs what it refused, one line, not forwarded', async () => {
    const upstream = await startServer((_, res) => res.writeHead(201).end('{}'));
    const proxy = await startProxy(['--target', upstream.url]);
    await requestLine(proxy.url, 'POST', '/x', '{}', { Host: 'attacker.example' });
    await requestLine(proxy.url, 'POST', '/x', '{}', { Origin: 'http://attacker.example' });
    expect(proxy.stderr()).toContain('POST /x -> 421 (not forwarded: Host "attacker.example")');
    expect(proxy.stderr()).toContain(
      'POST /x -> 403 (not forwarded: Origin "http://attacker.example")',
    );
    expect(upstream.requests).toEqual([]);
    await upstream.close();
  });

  it('answers to the address it listens on (--host), as it prints it', async () => {
    const upstream = await startServer((_, res) => res.writeHead(201).end('{}'));
    const proxy = await startProxy(['--target', upstream.url, '--host', '0.0.0.0']);
    const { port } = new URL(proxy.url);
    const answer = await requestLine(`http://127.0.0.1:${port}`, 'POST', '/x', '{}', {
      Host: `0.0.0.0:${port}`,
    });
    expect(answer.status).toBe(201);
    expect(upstream.requests).toHaveLength(1);
    await upstream.close();
  });
});

describe("sign-proxy: the service's answer comes back unchanged", () => {
  it('status, reason, headers (repeats and case kept) and body bytes, streamed', async () => {
    const compressed = gzipSync(Buffer.from('{"type":"urn:x","status":409}'));
    const upstream = await startServer((_, res) => {
      res.statusMessage = 'Conflict Here';
      res.setHeader('Content-Type', 'application/problem+json');
      res.setHeader('Content-Encoding', 'gzip');
      res.setHeader('RateLimit', '"per-institution";r=3;t=40');
      res.setHeader('Set-Cookie', ['a=1', 'b=2']);
      res.writeHead(409);
      // in two writes, without a length: the proxy streams it (chunked on both sides)
      res.write(compressed.subarray(0, 10));
      setTimeout(() => res.end(compressed.subarray(10)), 50);
    });
    const proxy = await startProxy(['--target', upstream.url]);
    const answer = await rawRequest(`${proxy.url}/api/v1/external/users`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: prettyBody,
    });
    expect(answer.status).toBe(409);
    expect(answer.statusMessage).toBe('Conflict Here');
    expect(answer.body.equals(compressed)).toBe(true);
    const pairs = [];
    for (let i = 0; i < answer.rawHeaders.length; i += 2) {
      pairs.push([answer.rawHeaders[i], answer.rawHeaders[i + 1]]);
    }
    expect(pairs).toEqual(
      expect.arrayContaining([
        ['Content-Type', 'application/problem+json'],
        ['Content-Encoding', 'gzip'],
        ['RateLimit', '"per-institution";r=3;t=40'],
        ['Set-Cookie', 'a=1'],
        ['Set-Cookie', 'b=2'],
      ]),
    );
    await upstream.close();
  });
});

describe('sign-proxy: what it cannot forward', () => {
  it('answers 502 with a problem naming the cause when the service cannot be reached', async () => {
    const closedPort = await freePort();
    const target = `http://127.0.0.1:${closedPort}`;
    const proxy = await startProxy(['--target', target]);
    const answer = await fetch(`${proxy.url}/api/v1/external/users`, {
      method: 'POST',
      body: prettyBody,
    });
    expect(answer.status).toBe(502);
    expect(answer.headers.get('content-type')).toBe('application/problem+json');
    const text = await answer.text();
    expect(JSON.parse(text)).toEqual({
      type: 'urn:institution-api:problem:sign-proxy',
      title: 'Bad gateway',
      status: 502,
      detail: `The sign-proxy could not forward POST /api/v1/external/users to ${target}: connection refused (ECONNREFUSED).`,
    });
    expect(text).not.toContain(testKeys.secretKey);
    expect(proxy.stderr()).toContain('-> 502 (connection refused (ECONNREFUSED))');
  });

  it(`answers 413 for a body over ${maxBufferedBodyBytes} bytes, without forwarding it`, async () => {
    const upstream = await startServer((_, res) => res.writeHead(200).end());
    const proxy = await startProxy(['--target', upstream.url]);
    const answer = await fetch(`${proxy.url}/x`, {
      method: 'POST',
      body: Buffer.alloc(maxBufferedBodyBytes + 1, 'a'),
    });
    expect(answer.status).toBe(413);
    expect(((await answer.json()) as { detail: string }).detail).toContain('at most');
    expect(upstream.requests).toHaveLength(0);
    await upstream.close();
  });
});

describe('sign-proxy: its command line', () => {
  it('--help prints its usage', async () => {
    const { code, stdout } = await runToExit(['--help']);
    expect(code).toBe(EXIT.ok);
    expect(stdout).toBe(signProxyUsage());
    expect(stdout).toContain('INSTITUTION_SECRET_KEY');
  });

  it.each([
    [[], { INSTITUTION_PUBLIC_KEY: 'pk' }, 'INSTITUTION_SECRET_KEY is not set'],
    [[], { INSTITUTION_SECRET_KEY: 's' }, 'INSTITUTION_PUBLIC_KEY is not set'],
    [['--port', '70000'], ENV, '--port must be an integer from 0 to 65535, not "70000"'],
    [['--port', 'x'], ENV, '--port must be an integer from 0 to 65535, not "x"'],
    [
      ['--target', 'ftp://example.com'],
      ENV,
      '--target (or INSTITUTION_API_URL) must be an http or https URL, e.g. http://localhost:8080',
    ],
    [['--algorithm', 'md5'], ENV, '--algorithm must be one of sha256, sha512'],
    [['--encoding', 'hex2'], ENV, '--encoding must be one of hex, base64'],
    [['--verbose'], ENV, "Unknown option '--verbose'"],
    [
      ['--allow-host', 'http://signer.internal'],
      ENV,
      '--allow-host must be a host name or address, optionally with :port',
    ],
    [['--allow-host', 'signer.internal:'], ENV, '--allow-host must be a host name or address'],
    [
      ['--allow-origin', 'https://docs.example.com/'],
      ENV,
      '--allow-origin must be an http or https origin as browsers send it',
    ],
    [['--allow-origin', '*'], ENV, '--allow-origin must be an http or https origin'],
  ])('%j exits 2 with one line saying what is wrong', async (args, env, message) => {
    const { code, stdout, stderr } = await runToExit(args, env);
    expect(code).toBe(EXIT.usage);
    expect(stdout).toBe('');
    expect(stderr.split('\n')[0]).toContain(`institution-api sign-proxy: ${message}`);
    expect(stderr).toContain('Run institution-api sign-proxy --help for usage.');
  });

  it('says so when its port is taken', async () => {
    const first = await startProxy([]);
    const port = new URL(first.url).port;
    const { code, stderr } = await runToExit(['--port', port]);
    expect(code).toBe(EXIT.usage);
    expect(stderr).toBe(
      `institution-api sign-proxy: cannot listen on 127.0.0.1:${port}: the port is in use (EADDRINUSE)\n`,
    );
  });

  it('listens on --port when given', async () => {
    const port = await freePort();
    const proxy = await startProxy(['--port', String(port)]);
    expect(proxy.url).toBe(`http://127.0.0.1:${port}`);
  });

  it('warns when --host is not a loopback address, and not otherwise', async () => {
    const loopback = await startProxy(['--host', 'localhost']);
    expect(loopback.stderr()).not.toContain('warning');
    const everywhere = await startProxy(['--host', '0.0.0.0']);
    expect(everywhere.url).toMatch(/^http:\/\/0\.0\.0\.0:\d+$/);
    expect(everywhere.stderr()).toContain(
      'institution-api sign-proxy: warning: listening on 0.0.0.0, not on a loopback address: anyone who can reach it can send requests signed with your keys.',
    );
  });

  it('is dispatched by the institution-api command', async () => {
    const { main } = await import('../src/main.js');
    let stdout = '';
    const code = await main(['sign-proxy', '--help'], {
      env: ENV,
      stdout: (text) => {
        stdout += text;
      },
      stderr: () => {},
    });
    expect(code).toBe(EXIT.ok);
    expect(stdout).toBe(signProxyUsage());
  });
});

const launcher = fileURLToPath(new URL('../bin/institution-api.js', import.meta.url));

/** The built executable, `sign-proxy <args>`, in a process of its own. */
function spawnProxy(args: string[], env: Record<string, string>) {
  return startListeningProcess([launcher, 'sign-proxy', ...args], { ...process.env, ...env });
}

describe('sign-proxy as an executable', () => {
  it('SIGTERM stops it after the requests in flight are answered', async () => {
    let answerNow = () => {};
    const upstream = await startServer((_, res) => {
      answerNow = () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":1}');
    });
    const proxy = await spawnProxy([], { ...ENV, INSTITUTION_API_URL: upstream.url });
    expect(proxy.output()).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+\n/);

    const inFlight = fetch(`${proxy.url}/api/v1/external/users`, {
      method: 'POST',
      body: prettyBody,
    });
    while (upstream.requests.length === 0) await new Promise((r) => setTimeout(r, 20));
    proxy.child.kill('SIGTERM');
    // It has taken the signal once it accepts no new connection; it still answers the request it
    // holds, then exits 0 on its own.
    const port = Number(new URL(proxy.url).port);
    await waitFor(async () => !(await acceptsConnections(port)), {
      timeoutMs: 10_000,
      message: 'the proxy to stop accepting connections',
    });
    expect(proxy.child.exitCode).toBeNull();
    answerNow();
    const answer = await inFlight;
    expect(answer.status).toBe(200);
    expect(await answer.text()).toBe('{"ok":1}');
    expect(await proxy.exited).toEqual([0, null]);
    // and no longer listens
    await expect(fetch(`${proxy.url}/x`)).rejects.toThrow();
    expect(proxy.output()).not.toContain(testKeys.secretKey);
    await upstream.close();
  }, 30_000);
});

/** The repository's root, where `./node_modules/.bin/institution-api` is, as in a project. */
const root = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * Runs `line` (which ends with `&`) in `sh`, as a user's shell does, from the repository's root;
 * resolves once the proxy prints where it listens, with `$!` (the PID the shell gives the user).
 * `gone` settles once every process that started with the shell's output has exited.
 */
async function startInShell(line: string, env: NodeJS.ProcessEnv) {
  // detached: a process group of its own, which the proxy keeps even once re-parented, so that
  // a failed test can still stop it
  const child = spawn('sh', ['-c', `${line}\necho "started=$!"\nwait`], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  if (child.pid !== undefined) shellGroups.push(child.pid);
  let output = '';
  const collect = (text: string) => {
    output += text;
  };
  child.stdout.setEncoding('utf8').on('data', collect);
  child.stderr.setEncoding('utf8').on('data', collect);
  // 'close': the pipes are closed by every process holding them, the proxy's included
  const gone = once(child, 'close');
  const started = await new Promise<{ url: string; pid: number }>((resolve, reject) => {
    const poll = setInterval(() => {
      const url = /^listening on (http:\/\/\S+)$/m.exec(output)?.[1];
      const pid = /^started=(\d+)$/m.exec(output)?.[1];
      if (url && pid) {
        clearInterval(poll);
        resolve({ url, pid: Number(pid) });
      }
    }, 20);
    void gone.then(() => {
      clearInterval(poll);
      reject(new Error(`${line} ended before listening:\n${output}`));
    });
  });
  return { ...started, gone, output: () => output };
}

/** The process groups of the shells started, killed after each test (none is left once passed). */
const shellGroups: number[] = [];
afterEach(() => {
  for (const group of shellGroups.splice(0)) {
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      // ESRCH: the whole group has exited, as it should have
    }
  }
});

/** The environment of a shell outside npm, with the keys and the target. */
function shellEnv(target: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...ENV, INSTITUTION_API_URL: target };
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('npm_')) env[name] = value;
  }
  return env;
}

describe('sign-proxy started in the background, stopped with kill', () => {
  it('as docs/sign-proxy.md starts it: SIGTERM to $! stops it', async () => {
    const readme = await readFile(new URL('../docs/sign-proxy.md', import.meta.url), 'utf8');
    const block = /\n\*\*In the background\*\*[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    const [line] = block.split('\n');
    expect(line).toMatch(/^\.\/node_modules\/\.bin\/institution-api sign-proxy --port 8091 &$/);
    expect(block).toContain('proxy=$!');
    expect(block).toContain('kill $proxy');
    const upstream = await startServer((_, res) => res.writeHead(201).end('{}'));
    const port = String(await freePort());
    const proxy = await startInShell(line?.replace('8091', port) ?? '', shellEnv(upstream.url));
    expect(
      (await fetch(`${proxy.url}/api/v1/external/users`, { method: 'POST', body: '{}' })).status,
    ).toBe(201);

    process.kill(proxy.pid, 'SIGTERM');
    await proxy.gone;
    await expect(fetch(`${proxy.url}/x`)).rejects.toThrow();
    expect(proxy.output()).not.toContain(testKeys.secretKey);
    await upstream.close();
  }, 30_000);

  it('through npx: SIGTERM to $! (npm) stops it too', async () => {
    const upstream = await startServer((_, res) => res.writeHead(201).end('{}'));
    const port = String(await freePort());
    const proxy = await startInShell(
      `npx institution-api sign-proxy --port ${port} &`,
      shellEnv(upstream.url),
    );
    expect(
      (await fetch(`${proxy.url}/api/v1/external/users`, { method: 'POST', body: '{}' })).status,
    ).toBe(201);

    process.kill(proxy.pid, 'SIGTERM');
    // npm and its shell end at once; the proxy stops on seeing npm gone
    await proxy.gone;
    await expect(fetch(`${proxy.url}/x`)).rejects.toThrow();
    expect(proxy.output()).toContain(
      'institution-api sign-proxy: npm, which started it, has exited (SIGTERM to npx?): stopping.',
    );
    await upstream.close();
  }, 30_000);
});

describe('curl, without openssl, through sign-proxy to the reference server, on a key that requires message signatures', () => {
  let server: RunningServer;
  let dir: string;
  beforeAll(async () => {
    // A key that requires message signatures: the seed's header alone would be refused.
    const credentials = [
      { institution: 'Sign-proxy tests', ...testKeys, messageSignature: 'required' as const },
    ];
    server = await startReferenceServer({ credentials });
    dir = await mkdtemp(join(tmpdir(), 'sign-proxy-'));
  }, 40_000);
  afterAll(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('creates a user (201), then finds it again (200), each request signed both ways anew', async () => {
    const proxy = await spawnProxy([], { ...ENV, INSTITUTION_API_URL: server.url });
    const file = join(dir, 'user.json');
    await writeFile(file, prettyBody);
    const curl = () =>
      promisify(execFile)(
        'curl',
        [
          '-sS',
          '-o',
          '/dev/null',
          '-w',
          '%{http_code}',
          '--data-binary',
          `@${file}`,
          '-H',
          'Content-Type: application/json',
          `${proxy.url}/api/v1/external/users`,
        ],
        { env: { PATH: process.env.PATH ?? '' } },
      );
    expect((await curl()).stdout).toBe('201');
    expect((await curl()).stdout).toBe('200');
    proxy.child.kill('SIGTERM');
    expect(await proxy.exited).toEqual([0, null]);
  }, 30_000);
});
