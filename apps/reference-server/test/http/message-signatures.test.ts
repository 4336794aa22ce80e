import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { generateCredential } from '../../src/credentials/generate-credential.js';
import { StorageUnavailableError } from '../../src/storage/health/unavailable.js';
import type { InstitutionCredential, Storage } from '../../src/storage/types.js';
import {
  type Answer,
  type Captured,
  newUser,
  type SendOptions,
  startTestServer,
  type TestServer,
} from './harness.js';

/**
 * RFC 9421 message signatures beside the Authorization header (spec: `InstitutionSignature`,
 * "Assumptions", message signatures): every way a request can fail them answers the one 401, on a
 * key pair that requires them; and what a key pair whose policy is `any` still lets through.
 */

/** The server's clock (ms), moved by the tests: no waiting for time to pass. */
let clock = Date.now();
const seconds = () => Math.floor(clock / 1000);

const delta: InstitutionCredential = {
  ...generateCredential('Delta Trust'),
  signaturePolicy: 'message-signature',
};
const epsilon: InstitutionCredential = {
  ...generateCredential('Epsilon Loans'),
  signaturePolicy: 'message-signature',
};

let server: TestServer;
let alpha: InstitutionCredential;
beforeAll(async () => {
  server = await startTestServer({ moreInstitutions: [delta, epsilon], now: () => clock });
  alpha = server.institutions[0] as InstitutionCredential;
});
afterAll(() => server?.close());

const usersPath = '/api/v1/external/users';
const unauthorized = {
  type: 'urn:institution-api:problem:unauthorized',
  title: 'Unauthorized',
  status: 401,
  detail: 'The Authorization header is missing or its signature does not verify.',
};

/** A request signed both ways, `created` from the server's clock unless `change` says. */
const signed = (
  method: string,
  path: string,
  body: unknown,
  as: InstitutionCredential,
  change: Exclude<SendOptions['messageSignature'], true | undefined> = {},
): Captured =>
  server.prepare(method, path, { body, as, messageSignature: { created: seconds(), ...change } });

/** The reason the server logged for refusing the request of this answer. */
function refusalReason(answer: Answer): unknown {
  const id = answer.headers.get('x-request-id');
  return server.logs().find((line) => line.reqId === id && line.msg === 'authentication failed')
    ?.reason;
}

const createdId = async (captured: Captured) => {
  const answer = await server.sendCaptured(captured);
  expect(answer.status, answer.text).toBe(201);
  return (answer.body as { id: string }).id;
};

describe('a key pair that requires message signatures', () => {
  test('accepts a request signed both ways, at most once', async () => {
    const request = signed('POST', usersPath, newUser(), delta);
    expect((await server.sendCaptured(request)).status).toBe(201);
    const replayed = await server.sendCaptured(request);
    expect(replayed.status).toBe(401);
    expect(refusalReason(replayed)).toBe('message-signature-replayed');
  });

  test('records the nonce whatever the first answer was: a replay of a 200, 400, 404 or 409 is refused', async () => {
    const existing = newUser();
    await createdId(signed('POST', usersPath, existing, delta));
    const firsts: [number, Captured][] = [
      [200, signed('POST', usersPath, existing, delta)],
      [400, signed('POST', usersPath, newUser({ email: 'not an email' }), delta)],
      [404, signed('PUT', `${usersPath}/${randomUUID()}`, newUser(), delta)],
      [409, signed('POST', usersPath, newUser({ email: existing.email }), delta)],
    ];
    for (const [status, request] of firsts) {
      const first = await server.sendCaptured(request);
      expect(first.status, first.text).toBe(status);
      const replayed = await server.sendCaptured(request);
      expect(replayed.status, `the replay of a ${status}`).toBe(401);
      expect(refusalReason(replayed)).toBe('message-signature-replayed');
    }
  });

  test('accepts @target-uri instead of @path, sha-512 digests, a future expires and a created within the window', async () => {
    for (const change of [
      { components: ['@method', '@target-uri', 'content-digest'] },
      { digest: 'sha-512' as const },
      { expires: seconds() + 30 },
      { created: seconds() - 299 },
      { created: seconds() + 299 },
    ]) {
      const answer = await server.sendCaptured(signed('POST', usersPath, newUser(), delta, change));
      expect(answer.status, `${JSON.stringify(change)}: ${answer.text}`).toBe(201);
    }
  });

  const body = JSON.stringify(newUser());
  const otherBody = JSON.stringify(newUser());
  /** Each way to fail, with the reason the log gives; each answers the same 401. */
  const refusals: [string, string, () => Captured][] = [
    [
      'no message signature',
      'message-signature-missing',
      () => server.prepare('POST', usersPath, { body, as: delta }),
    ],
    [
      'a signature made with another secret',
      'message-signature-wrong-signature',
      () => signed('POST', usersPath, body, delta, { secretKey: epsilon.secretKey }),
    ],
    [
      'the body changed under the signature (Authorization made anew)',
      'message-signature-content-digest-mismatch',
      () => signed('POST', usersPath, otherBody, delta, { signedBody: body }),
    ],
    [
      'a Content-Digest of other bytes',
      'message-signature-content-digest-mismatch',
      () => {
        const request = signed('POST', usersPath, body, delta);
        const digest = createHash('sha-256').update(otherBody).digest('base64');
        return {
          ...request,
          headers: { ...request.headers, 'content-digest': `sha-256=:${digest}:` },
        };
      },
    ],
    [
      'a Content-Digest that is not a structured field',
      'message-signature-content-digest-mismatch',
      () => {
        const request = signed('POST', usersPath, body, delta);
        return { ...request, headers: { ...request.headers, 'content-digest': 'sha-256=abc' } };
      },
    ],
    [
      'no content-digest among the covered components',
      'message-signature-missing-required-component',
      () => signed('POST', usersPath, body, delta, { components: ['@method', '@path'] }),
    ],
    [
      'neither @path nor @target-uri covered',
      'message-signature-missing-required-component',
      () => signed('POST', usersPath, body, delta, { components: ['@method', 'content-digest'] }),
    ],
    [
      'a created older than the window',
      'message-signature-stale',
      () => signed('POST', usersPath, body, delta, { created: seconds() - 301 }),
    ],
    [
      'a created further ahead than the window',
      'message-signature-stale',
      () => signed('POST', usersPath, body, delta, { created: seconds() + 301 }),
    ],
    [
      'an expires already past',
      'message-signature-expired',
      () => signed('POST', usersPath, body, delta, { expires: seconds() - 1 }),
    ],
    [
      'a keyid that is not the Authorization header’s public key',
      'message-signature-no-signature-for-key',
      () =>
        signed('POST', usersPath, body, delta, {
          keyId: epsilon.publicKey,
          secretKey: epsilon.secretKey,
        }),
    ],
    [
      'another algorithm',
      'message-signature-unsupported-algorithm',
      () => {
        const request = signed('POST', usersPath, body, delta);
        const input = request.headers['signature-input'] ?? '';
        expect(input).toContain('alg="hmac-sha256"');
        return {
          ...request,
          headers: {
            ...request.headers,
            'signature-input': input.replace('alg="hmac-sha256"', 'alg="hmac-sha512"'),
          },
        };
      },
    ],
    [
      'Signature-Input without Signature',
      'message-signature-malformed',
      () => {
        const { signature: _, ...headers } = signed('POST', usersPath, body, delta).headers;
        return { ...signed('POST', usersPath, body, delta), headers };
      },
    ],
    [
      'a nonce longer than 256 characters',
      'message-signature-nonce-too-long',
      () => signed('POST', usersPath, body, delta, { nonce: 'n'.repeat(257) }),
    ],
  ];

  test.each(refusals)(
    '%s: the uniform 401, the reason in the log only',
    async (_, reason, make) => {
      const answer = await server.sendCaptured(make());
      expect(answer.status).toBe(401);
      expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(answer.body).toEqual({ ...unauthorized, instance: usersPath });
      expect(refusalReason(answer)).toBe(reason);
    },
  );

  test('the 401 bodies of every refusal are byte for byte the same, and no secret or signature is logged', async () => {
    const texts = new Set<string>();
    for (const [, , make] of refusals) texts.add((await server.sendCaptured(make())).text);
    expect(texts.size).toBe(1);
    const logged = JSON.stringify(server.logs());
    for (const institution of server.institutions) {
      expect(logged).not.toContain(institution.secretKey);
    }
    const request = signed('POST', usersPath, body, delta);
    expect(logged).not.toContain((request.headers.signature ?? '').slice(5, 40));
  });

  test('a captured update replayed on another user, or again later, is refused (the attack of a leaked request)', async () => {
    const a = await createdId(signed('POST', usersPath, newUser(), delta));
    const b = await createdId(signed('POST', usersPath, newUser(), delta));
    const captured = signed(
      'PUT',
      `${usersPath}/${a}`,
      newUser({
        accountType: 'MOMO',
        accountNumber: '0551112222',
        accountName: 'Thief',
        network: 'MTN',
      }),
      delta,
    );
    // The path swap: the Authorization header still verifies (it covers the body alone), the
    // message signature does not (it covers @path).
    const swapped = await server.sendCaptured(captured, { path: `${usersPath}/${b}` });
    expect(swapped.status).toBe(401);
    expect(refusalReason(swapped)).toBe('message-signature-wrong-signature');
    expect((await server.sendCaptured(captured)).status).toBe(200);
    // The replay, at once and within the window (the nonce), and a month later (stale).
    const again = await server.sendCaptured(captured);
    expect(again.status).toBe(401);
    expect(refusalReason(again)).toBe('message-signature-replayed');
    const saved = clock;
    clock += 30 * 24 * 3600 * 1000;
    try {
      const later = await server.sendCaptured(captured);
      expect(later.status).toBe(401);
      expect(refusalReason(later)).toBe('message-signature-stale');
    } finally {
      clock = saved;
    }
  });

  test('stripping the message signature leaves a request that is refused', async () => {
    const {
      'signature-input': _,
      signature: __,
      ...headers
    } = signed('POST', usersPath, body, delta).headers;
    const answer = await server.sendCaptured({ method: 'POST', path: usersPath, headers, body });
    expect(answer.status).toBe(401);
    expect(refusalReason(answer)).toBe('message-signature-missing');
  });
});

describe('nonces', () => {
  test('are per key pair: the same nonce under two keys is two requests', async () => {
    for (const as of [delta, epsilon]) {
      const answer = await server.sendCaptured(
        signed('POST', usersPath, newUser(), as, { nonce: 'shared-by-two-keys' }),
      );
      expect(answer.status).toBe(201);
    }
  });

  test('are kept until the window has passed, then free again', async () => {
    const first = signed('POST', usersPath, newUser(), delta, { nonce: 'kept-for-the-window' });
    expect((await server.sendCaptured(first)).status).toBe(201);
    const saved = clock;
    try {
      clock += 300_000; // created + 300 s: the first request would still be accepted
      const within = await server.sendCaptured(
        signed('POST', usersPath, newUser(), delta, { nonce: 'kept-for-the-window' }),
      );
      expect(refusalReason(within)).toBe('message-signature-replayed');
      clock = saved + 301_000; // now stale: its nonce may be used again
      const after = await server.sendCaptured(
        signed('POST', usersPath, newUser(), delta, { nonce: 'kept-for-the-window' }),
      );
      expect(after.status).toBe(201);
    } finally {
      clock = saved;
    }
  });
});

describe('a key pair whose policy is any (every pair issued without --require-message-signature)', () => {
  test('accepts the Authorization header alone, and checks a message signature when there is one', async () => {
    expect((await server.send('POST', usersPath, { body: newUser(), as: alpha })).status).toBe(201);
    const request = signed('POST', usersPath, newUser(), alpha);
    expect((await server.sendCaptured(request)).status).toBe(201);
    const replayed = await server.sendCaptured(request);
    expect(refusalReason(replayed)).toBe('message-signature-replayed');
    const stale = await server.sendCaptured(
      signed('POST', usersPath, newUser(), alpha, { created: seconds() - 301 }),
    );
    expect(refusalReason(stale)).toBe('message-signature-stale');
  });

  test('still lets a captured update be replayed on another user and again later: the residual risk the spec states', async () => {
    const a = await createdId(server.prepare('POST', usersPath, { body: newUser(), as: alpha }));
    const b = await createdId(server.prepare('POST', usersPath, { body: newUser(), as: alpha }));
    const stolen = newUser({
      firstName: 'Captured',
      accountType: 'MOMO',
      accountNumber: '0551112222',
      accountName: 'Thief',
      network: 'MTN',
    });
    // Sent with the Authorization header alone, as clients that only know it do, for user a;
    // captured on the way, and sent on to user b instead.
    const captured = server.prepare('PUT', `${usersPath}/${a}`, { body: stolen, as: alpha });
    const swapped = await server.sendCaptured(captured, { path: `${usersPath}/${b}` });
    expect(swapped.status).toBe(200);
    expect(swapped.body).toMatchObject({ id: b, firstName: 'Captured' });
    const saved = clock;
    clock += 30 * 24 * 3600 * 1000;
    try {
      const later = await server.sendCaptured(captured, { path: `${usersPath}/${b}` });
      expect(later.status).toBe(200);
    } finally {
      clock = saved;
    }
    // And a request sent with a message signature too, whose signature fields are taken off.
    const signedUpdate = signed('PUT', `${usersPath}/${a}`, stolen, alpha);
    const {
      'signature-input': _,
      signature: __,
      'content-digest': ___,
      ...stripped
    } = signedUpdate.headers;
    const replayed = await server.sendCaptured(signedUpdate, {
      path: `${usersPath}/${b}`,
      headers: stripped,
    });
    expect(replayed.status).toBe(200);
  });
});

describe('a database that cannot record the nonce', () => {
  let down: TestServer;
  beforeAll(async () => {
    const fault = () =>
      Promise.reject(
        new StorageUnavailableError('PostgreSQL cannot be reached (ECONNREFUSED)', {
          cause: new Error('connect ECONNREFUSED'),
        }),
      );
    // Whatever records a nonce fails: a claim alone, and a write that carries one.
    const unavailable = (storage: Storage): Storage => ({
      ...storage,
      claimNonce: fault,
      createOrAddUser: (institutionId, details, nonce) =>
        nonce ? fault() : storage.createOrAddUser(institutionId, details),
    });
    down = await startTestServer({ shareWith: server, wrapStorage: unavailable, now: () => clock });
  });
  afterAll(() => down?.close());

  test('answers 503 with Retry-After, never accepting the request unrecorded', async () => {
    const answer = await down.send('POST', usersPath, {
      body: newUser(),
      as: delta,
      messageSignature: { created: seconds() },
    });
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('1');
    expect(answer.body).toMatchObject({ type: 'urn:institution-api:problem:unavailable' });
  });

  test('still serves a key pair whose policy is any, sent without a message signature', async () => {
    const answer = await down.send('POST', usersPath, { body: newUser(), as: alpha });
    expect(answer.status).toBe(201);
  });
});
