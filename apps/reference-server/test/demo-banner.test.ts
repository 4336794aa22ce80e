import { afterAll, beforeAll, expect, test } from 'vitest';
import { loadConfig } from '../src/config.js';
import { startBanner } from '../src/demo-banner.js';
import { startTestServer, type TestServer } from './http/harness.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

/** The Authorization header and the body of the banner's curl line, as a shell would pass them. */
function parseCurl(banner: string): { url: string; authorization: string; body: string } {
  const curl = banner.slice(banner.indexOf('curl ')).replaceAll(' \\\n  ', ' ');
  const words = [...curl.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g)].map((m) =>
    m[1] !== undefined ? m[1].replaceAll("'\\''", "'") : (m[2] ?? ''),
  );
  const after = (flag: string) => words[words.indexOf(flag) + 1] ?? '';
  const headers = words.filter((_, i) => words[i - 1] === '-H');
  return {
    url: words[2] ?? '',
    authorization: (headers.find((h) => h.startsWith('Authorization: ')) ?? '').slice(15),
    body: after('--data-binary'),
  };
}

test('the banner names the API, docs and spec addresses', () => {
  const banner = startBanner({
    baseUrl: 'http://localhost:8080',
    config: loadConfig({}),
    demo: undefined,
  });
  expect(banner).toContain('http://localhost:8080/docs');
  expect(banner).toContain('http://localhost:8080/api/v1/external/users');
  expect(banner).not.toContain('curl');
});

test('the demo curl line, pasted, creates the example user (201)', async () => {
  const demo = server.institutions[1];
  if (!demo) throw new Error('no institution');
  const banner = startBanner({ baseUrl: server.baseUrl, config: loadConfig({}), demo });
  expect(banner).toContain(`public key: ${demo.publicKey}`);
  expect(banner).toContain(`secret key: ${demo.secretKey}`);
  const curl = parseCurl(banner);
  expect(curl.url).toBe(`${server.baseUrl}/api/v1/external/users`);
  const answer = await server.send('POST', '/api/v1/external/users', {
    body: curl.body,
    as: null,
    headers: { authorization: curl.authorization },
  });
  expect(answer.status).toBe(201);
  expect(answer.body).toMatchObject({
    email: 'efua.owusu@example.com',
    mobileNumber: '+233201234567',
  });
});

test('with SIGNATURE_* set, the curl line is signed the same way', async () => {
  const demo = server.institutions[2];
  if (!demo) throw new Error('no institution');
  const config = loadConfig({ SIGNATURE_ALGORITHM: 'sha512', SIGNATURE_ENCODING: 'base64' });
  const { authorization } = parseCurl(startBanner({ baseUrl: server.baseUrl, config, demo }));
  expect(authorization).toMatch(/:[A-Za-z0-9+/]{86}==$/);
});
