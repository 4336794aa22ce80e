import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { httpTimeouts } from '../../src/http/http-server.js';
import { getAsSent, newUser, schemaErrors, startTestServer, type TestServer } from './harness.js';

let server: TestServer;
let docsDir: string;
/** A docs page, easy to recognize whole. */
const page = `<!doctype html><title>docs</title>${'<p>Ghana Card number</p>\n'.repeat(4000)}`;
const changelog = '<!doctype html><title>Changelog</title><p>1.1.0</p>';

beforeAll(async () => {
  docsDir = await mkdtemp(join(tmpdir(), 'reference-server-edges-'));
  await writeFile(join(docsDir, 'index.html'), page);
  await writeFile(join(docsDir, 'changelog.html'), changelog);
  server = await startTestServer({
    docsPage: join(docsDir, 'index.html'),
    // short, so that a test can wait them out
    timeouts: {
      headersTimeoutMs: 600,
      requestTimeoutMs: 1200,
      keepAliveTimeoutMs: 500,
      checkEveryMs: 100,
    },
  });
});
afterAll(async () => {
  await server?.close();
  if (docsDir) await rm(docsDir, { recursive: true, force: true });
});

/** A GET of this test's server, as sent (harness: getAsSent). */
const get = (path: string, headers?: Record<string, string>) =>
  getAsSent(`${server.baseUrl}${path}`, headers);

/**
 * Sends raw bytes on a new connection, leaves it open, and resolves with everything the server
 * answers once the server closes it.
 */
function raw(bytes: string): Promise<string> {
  const { port } = new URL(server.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(bytes));
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk;
    });
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

function problemOf(answer: string): { status: number; contentType: string; body: unknown } {
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  return {
    status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]),
    contentType: /content-type: ([^\r\n]+)/i.exec(head)?.[1] ?? '',
    body: JSON.parse(body),
  };
}

describe('redirects to the docs', () => {
  test('GET / redirects to /docs', async () => {
    const answer = await get('/');
    expect(answer.status).toBe(302);
    expect(answer.headers.location).toBe('/docs');
  });

  test('GET /docs/ redirects to /docs for good', async () => {
    const answer = await get('/docs/');
    expect(answer.status).toBe(301);
    expect(answer.headers.location).toBe('/docs');
  });
});

describe('the files beside the docs page, served at the root as its relative links expect', () => {
  test('GET /changelog.html: the page beside index.html', async () => {
    const answer = await get('/changelog.html');
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toMatch(/^text\/html/);
    expect(answer.body.toString()).toBe(changelog);
  });

  test('GET /institution-api.postman_collection.json, not built: a 404 problem saying how to build it', async () => {
    const answer = await get('/institution-api.postman_collection.json');
    expect(answer.status).toBe(404);
    expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(answer.body.toString())).toMatchObject({
      detail:
        'The Postman collection is not built yet: run `npm run build` at the root of the repository.',
    });
  });

  test('POST /changelog.html: 405', async () => {
    const answer = await server.send('POST', '/changelog.html', { body: {} });
    expect(answer.status).toBe(405);
  });
});

describe('the HTTP parser\'s errors are problem details (spec Assumptions, "Errors")', () => {
  test('bytes that are not HTTP answer 400 malformed-request', async () => {
    const answer = problemOf(await raw('HELLO THERE\r\n\r\n'));
    expect(answer.status).toBe(400);
    expect(answer.contentType).toBe('application/problem+json');
    expect(answer.body).toMatchObject({ type: 'urn:institution-api:problem:malformed-request' });
    expect(schemaErrors('Problem', answer.body)).toEqual([]);
  });

  test('headers over 16 KiB answer 431', async () => {
    const answer = problemOf(
      await raw(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
    );
    expect(answer.status).toBe(431);
    expect(answer.body).toMatchObject({
      type: 'urn:institution-api:problem:request-header-fields-too-large',
      status: 431,
    });
    expect(schemaErrors('Problem', answer.body)).toEqual([]);
  });

  test('a body that does not arrive in time answers 408 and frees the connection', async () => {
    const started = performance.now();
    const answer = problemOf(
      await raw(
        'POST /api/v1/external/users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"em',
      ),
    );
    expect(answer.status).toBe(408);
    expect(answer.body).toMatchObject({ type: 'urn:institution-api:problem:request-timeout' });
    expect(schemaErrors('Problem', answer.body)).toEqual([]);
    // the short test timeout (1.2 s, checked every 0.1 s), not Node's 300 s
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  test('the production timeouts are set, not left at Node’s defaults', () => {
    expect(httpTimeouts).toEqual({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5_000,
      checkEveryMs: 1_000,
    });
  });
});

describe('error lists are capped (spec Assumptions, "Errors")', () => {
  test('5,000 unknown fields answer 50 errors and the count of the rest', async () => {
    const body: Record<string, unknown> = newUser();
    for (let i = 0; i < 5_000; i += 1) body[`u${i}`] = 0;
    const answer = await server.send('POST', '/api/v1/external/users', { body });
    expect(answer.status).toBe(400);
    const problem = answer.body as { errors: unknown[]; errorsOmitted: number };
    expect(problem.errors).toHaveLength(50);
    expect(problem.errorsOmitted).toBe(4_950);
    expect(answer.text.length).toBeLessThan(10_000);
    expect(schemaErrors('Problem', answer.body)).toEqual([]);
  });

  test('a short list is whole, without a count', async () => {
    const answer = await server.send('POST', '/api/v1/external/users', {
      body: { ...newUser(), nickname: 'Kofi' },
    });
    expect(answer.status).toBe(400);
    expect(answer.body).not.toHaveProperty('errorsOmitted');
  });
});
