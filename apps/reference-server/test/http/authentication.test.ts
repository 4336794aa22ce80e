import { authorizationHeader } from '@institution-api/test-support/signed-request';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { InstitutionCredential } from '../../src/storage/types.js';
import { type Answer, newUser, startTestServer, type TestServer } from './harness.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

const path = '/api/v1/external/users';
const unauthorized = {
  type: 'urn:institution-api:problem:unauthorized',
  title: 'Unauthorized',
  status: 401,
  detail: 'The Authorization header is missing or its signature does not verify.',
  instance: path,
};

/** Sends `text` with exactly the given Authorization header (or none). */
function sendRaw(text: string, authorization: string | undefined): Promise<Answer> {
  return server.send('POST', path, {
    body: text,
    as: null,
    headers: authorization === undefined ? {} : { authorization },
  });
}

/** The first and second institution of the server. */
const alpha = () => server.institutions[0] as InstitutionCredential;
const beta = () => server.institutions[1] as InstitutionCredential;

/** The log lines of the request whose response carried this request id. */
function logsOf(answer: Answer) {
  const id = answer.headers.get('x-request-id');
  return server.logs().filter((line) => line.reqId === id);
}

describe('every authentication failure answers the same 401 and logs why', () => {
  const text = JSON.stringify(newUser());
  const cases: [string, () => string | undefined][] = [
    ['missing-header', () => undefined],
    ['malformed-header', () => 'no colon here'],
    ['malformed-header', () => `${server.institutions[0]?.publicKey}:NOT-HEX`],
    ['malformed-header', () => `HMAC ${server.institutions[0]?.publicKey}:${'a'.repeat(64)}`],
    [
      'unknown-public-key',
      () =>
        authorizationHeader({ publicKey: 'pk_nobody', secretKey: 'a-guessed-secret-key' }, text),
    ],
    [
      'unknown-public-key',
      // Longer than any key can be (128 characters): no one's, refused before any lookup.
      () =>
        authorizationHeader({ publicKey: `pk_${'k'.repeat(16_000)}`, secretKey: 'a-guess' }, text),
    ],
    [
      'wrong-signature',
      () => authorizationHeader(alpha(), text, { secretKey: 'not-the-secret-key' }),
    ],
    [
      'wrong-signature',
      // Another institution's valid signature under this institution's public key.
      () => authorizationHeader(beta(), text, { publicKey: alpha().publicKey }),
    ],
  ];

  test.each(cases)('%s', async (reason, header) => {
    const answer = await sendRaw(text, header());
    expect(answer.status).toBe(401);
    expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(answer.body).toEqual(unauthorized);
    const failure = logsOf(answer).find((line) => line.msg === 'authentication failed');
    expect(failure).toMatchObject({ level: 'warn', reason });
    // Neither secret nor signature reaches the log.
    const logText = JSON.stringify(logsOf(answer));
    for (const institution of server.institutions) {
      expect(logText).not.toContain(institution.secretKey);
    }
    expect(logText).not.toContain(authorizationHeader(alpha(), text).split(':')[1]);
    const presented = header()?.split(':')[1];
    if (presented && presented.length > 10) expect(logText).not.toContain(presented);
  });

  test('the 401 bodies of all reasons are byte for byte the same', async () => {
    const bodies = new Set<string>();
    for (const [, header] of cases) bodies.add((await sendRaw(text, header())).text);
    expect(bodies.size).toBe(1);
  });
});

test('a public key longer than 128 characters is refused before the database is asked', async () => {
  const asked: string[] = [];
  const counting = await startTestServer({
    shareWith: server,
    wrapStorage: (storage) => ({
      ...storage,
      findCredential: (publicKey) => {
        asked.push(publicKey);
        return storage.findCredential(publicKey);
      },
    }),
  });
  try {
    const text = JSON.stringify(newUser());
    for (const publicKey of [`pk_${'k'.repeat(126)}`, `pk_${'k'.repeat(125)}`]) {
      const header = authorizationHeader({ publicKey, secretKey: 'a-guessed-secret' }, text);
      const answer = await counting.send('POST', path, {
        body: text,
        as: null,
        headers: { authorization: header },
      });
      expect(answer.body).toEqual(unauthorized);
    }
    expect(asked.map((key) => key.length)).toEqual([128]);
  } finally {
    await counting.close();
  }
});

test('the signature covers the exact bytes: a re-serialized body does not verify', async () => {
  const user = newUser();
  const signed = JSON.stringify(user);
  const header = authorizationHeader(alpha(), signed);
  // Same JSON value, other bytes (pretty-printed): must not verify.
  const reserialized = await sendRaw(JSON.stringify(user, null, 2), header);
  expect(reserialized.status).toBe(401);
  expect(logsOf(reserialized).find((l) => l.msg === 'authentication failed')?.reason).toBe(
    'wrong-signature',
  );
  // The signed bytes themselves do.
  expect((await sendRaw(signed, header)).status).toBe(201);
});

test('non-ASCII names are signed and verified as their UTF-8 bytes', async () => {
  const answer = await server.send('POST', path, {
    body: newUser({ firstName: 'Ɔkɔmfo', lastName: 'Ménsah 👩🏾' }),
  });
  expect(answer.status).toBe(201);
  expect(answer.body).toMatchObject({ firstName: 'Ɔkɔmfo', lastName: 'Ménsah 👩🏾' });
});

test('authentication runs before anything looks at the body', async () => {
  // Unsigned garbage, wrong content types and unknown fields all answer 401, not 400 or 415.
  for (const headers of [
    { 'content-type': 'application/json' },
    { 'content-type': 'text/plain' },
  ]) {
    const answer = await server.send('POST', path, { body: '{not json', as: null, headers });
    expect(answer.status).toBe(401);
  }
  const put = await server.send('PUT', '/api/v1/external/users/not-a-uuid', {
    body: { nickname: 1 },
    as: null,
  });
  expect(put.status).toBe(401);
});

describe('SIGNATURE_ALGORITHM=sha512 and SIGNATURE_ENCODING=base64', () => {
  let strong: TestServer;
  beforeAll(async () => {
    strong = await startTestServer({
      signature: { algorithm: 'sha512', encoding: 'base64' },
      shareWith: server,
    });
  });
  afterAll(() => strong?.close());

  test('a sha512/base64 signature verifies', async () => {
    const answer = await strong.send('POST', path, { body: newUser() });
    expect(answer.status).toBe(201);
  });

  test('a sha256/hex signature is refused as malformed, with the same 401', async () => {
    const answer = await strong.send('POST', path, {
      body: newUser(),
      signature: { algorithm: 'sha256', encoding: 'hex' },
    });
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual(unauthorized);
  });
});
