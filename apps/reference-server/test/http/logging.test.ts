import { afterAll, beforeAll, expect, test } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { newUser, startTestServer, type TestServer } from './harness.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

test('one access log line per request: id, method, path, status, latency; never the body', async () => {
  const user = newUser({ otherName: 'Secretive' });
  const answer = await server.send('POST', '/api/v1/external/users?x=query-value', {
    body: user,
    headers: { 'x-request-id': 'log-test-1' },
  });
  expect(answer.status).toBe(400);
  const lines = server.logs().filter((l) => l.reqId === 'log-test-1');
  const access = lines.filter((l) => l.msg === 'request');
  expect(access).toHaveLength(1);
  expect(access[0]).toMatchObject({
    level: 'info',
    service: 'reference-server',
    method: 'POST',
    path: '/api/v1/external/users',
    status: 400,
    latencyMs: expect.any(Number),
    time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
  });
  const text = JSON.stringify(lines);
  for (const leaked of ['Secretive', user.email, user.ghanaCardNumber, 'query-value']) {
    expect(text).not.toContain(leaked);
  }
});

test('no log line of a signed request carries the Authorization header or a secret', async () => {
  await server.send('POST', '/api/v1/external/users', {
    body: newUser(),
    headers: { 'x-request-id': 'log-test-2' },
  });
  const text = JSON.stringify(server.logs());
  for (const institution of server.institutions) {
    expect(text).not.toContain(institution.secretKey);
  }
  expect(text.toLowerCase()).not.toContain('authorization');
});

test('the logger redacts authorization headers and secret keys wherever they are put', () => {
  const lines: string[] = [];
  const logger = createLogger({
    level: 'info',
    destination: { write: (line: string) => void lines.push(line) },
  });
  logger.info(
    {
      authorization: 'pk:sig-top',
      req: { headers: { authorization: 'pk:sig-nested' } },
      secretKey: 'sk_top',
      credential: { secretKey: 'sk_nested' },
      credentials: [{ institution: 'A', publicKey: 'pk_a', secretKey: 'sk_in_list' }],
      config: { databaseUrl: 'postgres://user:password@db/x' },
    },
    'something with secrets',
  );
  const [line = ''] = lines;
  for (const secret of ['sig-top', 'sig-nested', 'sk_top', 'sk_nested', 'sk_in_list', 'password']) {
    expect(line).not.toContain(secret);
  }
  expect(JSON.parse(line)).toMatchObject({
    authorization: '[redacted]',
    req: { headers: { authorization: '[redacted]' } },
    credentials: [{ institution: 'A', publicKey: 'pk_a', secretKey: '[redacted]' }],
  });
});
