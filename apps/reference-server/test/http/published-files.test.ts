/**
 * What the server publishes beside the API (http/published-files.ts): every file is sent
 * compressed to a client that accepts it, the docs for agents as text, and no other site may
 * frame the docs' pages.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { specFiles } from '../../src/http/published-files.js';
import { getAsSent, newUser, startTestServer, type TestServer } from './harness.js';

let server: TestServer;
let docsDir: string;
/** Docs files large enough to be worth compressing, and easy to recognize whole. */
const page = `<!doctype html><title>docs</title>${'<p>Ghana Card number</p>\n'.repeat(4000)}`;
const changelog = `<!doctype html><title>Changelog</title>${'<li>header Prefer: added</li>\n'.repeat(200)}`;
const collection = JSON.stringify({ item: Array(200).fill({ name: 'Create a user' }) });
const llms = `# Institution API\n\n> For agents.\n\n## Operations\n\n${'- [Create a user](llms/createUser.md): POST\n'.repeat(100)}`;
const agentPage = `# Create a user\n\n${'| `email` | string | yes |\n'.repeat(300)}`;

beforeAll(async () => {
  docsDir = await mkdtemp(join(tmpdir(), 'reference-server-published-'));
  await writeFile(join(docsDir, 'index.html'), page);
  await writeFile(join(docsDir, 'changelog.html'), changelog);
  await writeFile(join(docsDir, 'institution-api.postman_collection.json'), collection);
  await writeFile(join(docsDir, 'llms.txt'), llms);
  await mkdir(join(docsDir, 'llms'));
  await writeFile(join(docsDir, 'llms', 'createUser.md'), agentPage);
  server = await startTestServer({ docsPage: join(docsDir, 'index.html') });
});
afterAll(async () => {
  await server?.close();
  if (docsDir) await rm(docsDir, { recursive: true, force: true });
});

/** A GET of this test's server, as sent (harness: getAsSent). */
const get = (path: string, headers?: Record<string, string>) =>
  getAsSent(`${server.baseUrl}${path}`, headers);

/** Every published file, and the bytes it must arrive as. */
const published: [path: string, bytes: () => Promise<Buffer | string>][] = [
  ['/docs', async () => page],
  ['/changelog.html', async () => changelog],
  ['/institution-api.postman_collection.json', async () => collection],
  ['/llms.txt', async () => llms],
  ['/llms/createUser.md', async () => agentPage],
  ['/openapi.yaml', () => readFile(specFiles.yaml)],
  ['/openapi.json', () => readFile(specFiles.json)],
];
const encodings = [
  ['gzip', gunzipSync],
  ['br', brotliDecompressSync],
] as const;

describe('every published file is sent compressed to a client that accepts it', () => {
  test.each(
    published.flatMap(([path, bytes]) =>
      encodings.map(([encoding, decompress]) => [path, encoding, bytes, decompress] as const),
    ),
  )('GET %s, Accept-Encoding: %s', async (path, encoding, bytes, decompress) => {
    const answer = await get(path, { 'accept-encoding': encoding });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBe(encoding);
    expect(answer.headers.vary).toMatch(/accept-encoding/i);
    const whole = Buffer.from(await bytes());
    expect(answer.body.length).toBeLessThan(whole.length / 3);
    expect(decompress(answer.body).equals(whole)).toBe(true);
  });

  test.each(published)('GET %s without Accept-Encoding: as it is', async (path, bytes) => {
    const answer = await get(path);
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.body.equals(Buffer.from(await bytes()))).toBe(true);
  });

  test('the API answers are not compressed', async () => {
    const created = await server.send('POST', '/api/v1/external/users', {
      body: newUser(),
      headers: { 'accept-encoding': 'gzip, br' },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('content-encoding')).toBeNull();
  });
});

describe("no other site may frame the docs' pages", () => {
  test.each(['/docs', '/changelog.html'])(
    'GET %s: frame-ancestors none and X-Frame-Options DENY, as headers',
    async (path) => {
      const answer = await get(path, { 'accept-encoding': 'gzip' });
      expect(answer.status).toBe(200);
      expect(answer.headers['content-security-policy']).toBe("frame-ancestors 'none'");
      expect(answer.headers['x-frame-options']).toBe('DENY');
    },
  );
});

describe('the docs for agents', () => {
  test.each([
    ['/llms.txt', 'text/plain; charset=utf-8'],
    ['/llms/createUser.md', 'text/markdown; charset=utf-8'],
  ])('GET %s: %s', async (path, type) => {
    const answer = await get(path);
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe(type);
  });

  test.each([
    '/llms/nothing.md',
    '/llms/createUser.txt',
    '/llms/..%2Findex.html',
    '/llms/%2E%2E%2Fllms.txt',
    '/llms/',
  ])('GET %s: the 404 of an unknown path', async (path) => {
    const answer = await get(path);
    expect(answer.status).toBe(404);
    expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  test('POST /llms/createUser.md: 405', async () => {
    const answer = await server.send('POST', '/llms/createUser.md', { body: {} });
    expect(answer.status).toBe(405);
  });
});
