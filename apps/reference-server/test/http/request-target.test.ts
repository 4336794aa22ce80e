import { unauthorizedDetail } from '@institution-api/runtime/http';
import { type RawRequest, sendRaw } from '@institution-api/test-support/raw-request';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { generateCredential } from '../../src/credentials/generate-credential.js';
import type { InstitutionCredential } from '../../src/storage/types.js';
import { newUser, type SendOptions, startTestServer, type TestServer } from './harness.js';

/**
 * What a message signature covers is what the server routes (spec: `InstitutionSignature`;
 * "Assumptions", message signatures; RFC 9112 §3.2, §3.3): `@path`, `@query`, `@authority` and
 * `@target-uri` come from the request target, never from a `Host` header; a `Host` that is not an
 * authority alone is left out of what a signature covers, so a path smuggled in it never moves a
 * signature (the one 401), and a request that is otherwise valid is then a 400; an absolute-form
 * target is served as its path. Sent with `sendRaw`, whose target and `Host` go on the wire as
 * written (fetch would normalize both).
 */

const delta: InstitutionCredential = {
  ...generateCredential('Delta Trust'),
  signaturePolicy: 'message-signature',
};

let server: TestServer;
let alpha: InstitutionCredential;
let authority: string;
beforeAll(async () => {
  server = await startTestServer({ moreInstitutions: [delta] });
  alpha = server.institutions[0] as InstitutionCredential;
  authority = new URL(server.baseUrl).host;
});
afterAll(() => server?.close());

const users = '/api/v1/external/users';
const malformedHost = {
  type: 'urn:institution-api:problem:malformed-request',
  title: 'Malformed request',
  status: 400,
  detail:
    'The request must carry one Host header whose value is an authority alone (host or host:port), without a path, query, fragment or user information.',
};

/** `path` signed by `as` (both ways for `delta`, the Authorization header alone for `alpha`), sent as `change` says. */
function signed(
  method: string,
  path: string,
  body: unknown,
  as: InstitutionCredential,
  change: Partial<RawRequest> & Pick<SendOptions, 'messageSignature' | 'messageSignatureUrl'> = {},
): RawRequest {
  const { messageSignature = as === delta, messageSignatureUrl, ...raw } = change;
  const captured = server.prepare(method, path, {
    body,
    as,
    ...(messageSignature ? { messageSignature } : {}),
    ...(messageSignatureUrl ? { messageSignatureUrl } : {}),
  });
  return {
    method,
    target: path,
    headers: captured.headers,
    body: captured.body as string,
    ...raw,
  };
}

const send = (request: RawRequest) => sendRaw(server.baseUrl, request);

/** A user created by `as`: its id and the details it was created with. */
async function created(as: InstitutionCredential) {
  const details = newUser();
  const answer = await send(signed('POST', users, details, as));
  expect(answer.status, answer.text).toBe(201);
  return { id: (answer.body as { id: string }).id, details };
}

/** The stored details of a user, as a create of the same details answers them (200, unchanged). */
async function storedFirstName(as: InstitutionCredential, details: unknown) {
  const answer = await send(signed('POST', users, details, as));
  expect(answer.status, answer.text).toBe(200);
  return (answer.body as { firstName: string }).firstName;
}

describe('a message signature for user A, sent to user B with a path smuggled in Host', () => {
  const smuggled: [string, (a: string) => string][] = [
    ['# after the path', (a) => `${authority}${users}/${a}#`],
    ['? after the path', (a) => `${authority}${users}/${a}?`],
    ['%23 after the path', (a) => `${authority}${users}/${a}%23`],
    ['%3F after the path', (a) => `${authority}${users}/${a}%3F`],
    ['every / as %2F', (a) => `${authority}${`${users}/${a}`.replaceAll('/', '%2F')}%23`],
    ['the path alone', (a) => `${authority}${users}/${a}`],
    ['user information before the authority', () => `attacker@${authority}`],
    [
      'a backslash (WHATWG URL reads it as /)',
      (a) => `${authority}\\api\\v1\\external\\users\\${a}#`,
    ],
  ];

  test.each(smuggled)(
    'Host with %s: the one 401 on a key that requires message signatures, and B unchanged',
    async (_, host) => {
      const a = await created(delta);
      const b = await created(delta);
      const forA = signed('PUT', `${users}/${a.id}`, newUser({ firstName: 'Attacker' }), delta);

      const moved = await send({ ...forA, target: `${users}/${b.id}`, host: host(a.id) });
      expect(moved.status, moved.text).toBe(401);
      expect(moved.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(moved.body).toMatchObject({ detail: unauthorizedDetail });
      expect(await storedFirstName(delta, b.details)).toBe(b.details.firstName);

      // Sent to A, where it was signed for, with that Host: signed right, but the Host is a 400.
      const again = signed('PUT', `${users}/${a.id}`, newUser({ firstName: 'Attacker' }), delta);
      const atA = await send({ ...again, host: host(a.id) });
      expect(atA.status, atA.text).toBe(400);
      expect(atA.body).toEqual({ ...malformedHost, instance: `${users}/${a.id}` });
      expect(await storedFirstName(delta, a.details)).toBe(a.details.firstName);

      // The captured request itself is valid: sent where it was signed for, it is accepted.
      const answer = await send(forA);
      expect(answer.status, answer.text).toBe(200);
      expect((answer.body as { firstName: string }).firstName).toBe('Attacker');
    },
  );

  test('with a Host that is an authority, the signature still covers the path: the one 401', async () => {
    const a = await created(delta);
    const b = await created(delta);
    for (const host of ['elsewhere.example', `localhost:${new URL(server.baseUrl).port}`]) {
      const forA = signed('PUT', `${users}/${a.id}`, newUser({ firstName: 'Attacker' }), delta);
      const moved = await send({ ...forA, target: `${users}/${b.id}`, host });
      expect(moved.status, moved.text).toBe(401);
      expect(moved.body).toMatchObject({ detail: unauthorizedDetail });
    }
    expect(await storedFirstName(delta, b.details)).toBe(b.details.firstName);
  });

  test('a signature that covers @authority binds the Host it was made for', async () => {
    const components = ['@method', '@path', '@authority', 'content-digest'];
    const forOther = signed('POST', users, newUser(), delta, {
      messageSignature: { components },
      messageSignatureUrl: `http://elsewhere.example${users}`,
    });
    expect((await send(forOther)).status).toBe(401);
    const forThis = signed('POST', users, newUser(), delta, { messageSignature: { components } });
    expect((await send(forThis)).status).toBe(201);
  });
});

describe('an absolute-form target (RFC 9112 §3.2.2) is served as its path', () => {
  const absolute = (path: string) => `${server.baseUrl}${path}`;

  test('create and update, with a message signature and with the Authorization header alone', async () => {
    for (const as of [delta, alpha]) {
      const create = await send(signed('POST', users, newUser(), as, { target: absolute(users) }));
      expect(create.status, `${as.institution}: ${create.text}`).toBe(201);
      const id = (create.body as { id: string }).id;
      const path = `${users}/${id}`;
      const update = await send(
        signed('PUT', path, newUser({ firstName: 'Updated' }), as, { target: absolute(path) }),
      );
      expect(update.status, `${as.institution}: ${update.text}`).toBe(200);
      expect(update.body).toMatchObject({ id, firstName: 'Updated' });
    }
  });

  test("the target's authority is the signature's, whatever Host says", async () => {
    const target = `http://api.example.test${users}`;
    const components = ['@method', '@target-uri', '@authority', 'content-digest'];
    const forTarget = signed('POST', users, newUser(), delta, {
      target,
      messageSignature: { components },
      messageSignatureUrl: target,
    });
    expect((await send(forTarget)).status).toBe(201);
    const forHost = signed('POST', users, newUser(), delta, {
      target,
      messageSignature: { components },
    });
    const refused = await send(forHost);
    expect(refused.status).toBe(401);
  });

  test('routing, problems and the access log see the path', async () => {
    const unknown = await send({ method: 'POST', target: absolute('/api/v1/external/people') });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({
      detail: 'No route matches POST /api/v1/external/people.',
      instance: '/api/v1/external/people',
    });
    const answer = await send(signed('POST', users, newUser(), alpha, { target: absolute(users) }));
    expect(answer.status).toBe(201);
    const logged = server
      .logs()
      .find((line) => line.msg === 'request' && line.reqId === answer.headers['x-request-id']);
    expect(logged).toMatchObject({ method: 'POST', path: users, status: 201 });
  });
});

describe('a target or Host that is not one is a 400 problem (RFC 9112 §3.2)', () => {
  test('a malformed Host is a 400 at once where nothing is authenticated', async () => {
    for (const target of ['/healthz', '/no/such/path', users]) {
      const answer = await send({ method: 'GET', target, headers: {}, host: 'h/x#' });
      expect(answer.status, `${target}: ${answer.text}`).toBe(400);
      expect(answer.body).toMatchObject({ ...malformedHost });
    }
  });

  const malformed: [string, Partial<RawRequest>, RegExp][] = [
    ['no Host', { host: [] }, /Host header/],
    ['two Host lines', { host: ['api.example.test', 'api.example.test'] }, /Host header/],
    ['an empty Host', { host: '' }, /Host header/],
    ['a fragment in the target', { target: `${users}#a` }, /request target/],
    ['an absolute-form target of another scheme', { target: `ftp://h${users}` }, /request target/],
    [
      'an absolute-form target with user information',
      { target: `http://u@h${users}` },
      /request target/,
    ],
  ];
  test.each(malformed)('%s', async (_, change, detail) => {
    const answer = await send({ ...signed('POST', users, newUser(), alpha), ...change });
    expect(answer.status, answer.text).toBe(400);
    expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(answer.body).toMatchObject({
      type: 'urn:institution-api:problem:malformed-request',
      detail: expect.stringMatching(detail),
    });
  });
});

describe('PUBLIC_ORIGIN: the scheme and authority clients call the server at', () => {
  let behindProxy: TestServer;
  const publicOrigin = 'https://api.example.test';
  beforeAll(async () => {
    behindProxy = await startTestServer({ shareWith: server, publicOrigin });
  });
  afterAll(() => behindProxy?.close());

  test('a signature of @target-uri for the public origin is accepted; one for the Host is not', async () => {
    const components = ['@method', '@target-uri', 'content-digest'];
    const forPublic = behindProxy.prepare('POST', users, {
      body: newUser(),
      as: delta,
      messageSignature: { components },
      messageSignatureUrl: `${publicOrigin}${users}`,
    });
    const forHost = behindProxy.prepare('POST', users, {
      body: newUser(),
      as: delta,
      messageSignature: { components },
    });
    expect((await behindProxy.sendCaptured(forPublic)).status).toBe(201);
    expect((await behindProxy.sendCaptured(forHost)).status).toBe(401);
  });
});
