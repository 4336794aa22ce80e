/**
 * The server behind HAProxy with the repository's `deploy/haproxy.cfg` (the compose file's load
 * balancer; test-support's startHaproxy changes only its two addresses): a message signature for
 * one user, sent to another with a path smuggled in `Host`, is refused there too, and an
 * absolute-form target is served (spec: `InstitutionSignature`; "Assumptions", message
 * signatures).
 */
import { type RunningHaproxy, startHaproxy } from '@institution-api/test-support/haproxy';
import { type RawRequest, sendRaw } from '@institution-api/test-support/raw-request';
import {
  type Credential,
  type RunningServer,
  startReferenceServer,
} from '@institution-api/test-support/reference-server';
import { describeWith } from '@institution-api/test-support/requirements';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { newUser, prepareRequest } from '../http/harness.js';

const users = '/api/v1/external/users';
const delta: Credential = {
  institution: 'Delta Trust',
  publicKey: 'haproxy-delta',
  secretKey: 'haproxy-delta-secret-0123456789',
  messageSignature: 'required',
};
const alpha: Credential = {
  institution: 'Alpha Savings',
  publicKey: 'haproxy-alpha',
  secretKey: 'haproxy-alpha-secret-0123456789',
};

describeWith('haproxy', 'the server behind deploy/haproxy.cfg', () => {
  let server: RunningServer;
  let haproxy: RunningHaproxy;
  let authority = '';
  beforeAll(async () => {
    server = await startReferenceServer({ credentials: [delta, alpha] });
    haproxy = await startHaproxy(server.url);
    authority = new URL(haproxy.url).host;
  });
  afterAll(async () => {
    await haproxy?.stop();
    await server?.stop();
  });

  /** `path` signed by `as` for HAProxy's URL (both ways for `delta`), sent as `change` says. */
  const signed = (
    method: string,
    path: string,
    body: unknown,
    as: Credential,
    change: Partial<RawRequest> = {},
  ): RawRequest => {
    const captured = prepareRequest(haproxy.url, method, path, {
      body,
      as,
      ...(as.messageSignature === 'required' ? { messageSignature: true } : {}),
    });
    return {
      method,
      target: path,
      headers: captured.headers,
      body: captured.body as string,
      ...change,
    };
  };
  const send = (request: RawRequest) => sendRaw(haproxy.url, request);
  const created = async () => {
    const details = newUser();
    const answer = await send(signed('POST', users, details, delta));
    expect(answer.status, answer.text).toBe(201);
    return { id: (answer.body as { id: string }).id, details };
  };

  test('a signature for user A sent to user B with a path smuggled in Host: the one 401, B unchanged', async () => {
    for (const smuggled of ['#', '?', '%23', '%3F']) {
      const a = await created();
      const b = await created();
      const forA = signed('PUT', `${users}/${a.id}`, newUser({ firstName: 'Attacker' }), delta);
      const moved = await send({
        ...forA,
        target: `${users}/${b.id}`,
        host: `${authority}${users}/${a.id}${smuggled}`,
      });
      expect(moved.status, `Host …${smuggled}: ${moved.text}`).toBe(401);
      expect(moved.body).toMatchObject({ type: 'urn:institution-api:problem:unauthorized' });
      const again = await send(signed('POST', users, b.details, delta));
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ id: b.id, firstName: b.details.firstName });
    }
  });

  test('an absolute-form create and update, with a message signature and with the Authorization header alone', async () => {
    for (const as of [delta, alpha]) {
      const create = await send(
        signed('POST', users, newUser(), as, { target: `${haproxy.url}${users}` }),
      );
      expect(create.status, `${as.institution}: ${create.text}`).toBe(201);
      const path = `${users}/${(create.body as { id: string }).id}`;
      const update = await send(
        signed('PUT', path, newUser({ firstName: 'Updated' }), as, {
          target: `${haproxy.url}${path}`,
        }),
      );
      expect(update.status, `${as.institution}: ${update.text}`).toBe(200);
    }
  });
});
