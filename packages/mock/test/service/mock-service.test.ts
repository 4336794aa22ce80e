/**
 * The mock service's behaviour a client relies on beyond what the conformance suite and the
 * differential test cover: message signatures as each key pair requires them, nonces used once,
 * forced answers with their headers, and `reset`.
 */
import { signedRequest } from '@institution-api/test-support/signed-request';
import { openapiDocument } from '@institution-api/types';
import { describe, expect, it } from 'vitest';
import { createMockService } from '../../src/service/mock-service.js';

const base = 'http://mock.test';
const URL_USERS = `${base}/api/v1/external/users`;
const pairs = [
  { institution: 'Any', publicKey: 'any-key', secretKey: 'any-secret-0123456789' },
  {
    institution: 'Strict',
    publicKey: 'strict-key',
    secretKey: 'strict-secret-0123456789',
    messageSignature: 'required' as const,
  },
];
const example = (openapiDocument.components.examples as Record<string, { value: object }>)
  .UserWithoutAccount?.value as object;
const body = JSON.stringify(example);

function request(
  pair: (typeof pairs)[number],
  options: { message?: boolean; nonce?: string; prefer?: string; text?: string } = {},
) {
  const signed = signedRequest('POST', URL_USERS, pair, {
    body: options.text ?? body,
    headers: options.prefer ? { prefer: options.prefer } : {},
    messageSignature: options.message ? (options.nonce ? { nonce: options.nonce } : {}) : false,
  });
  return new Request(signed.url, signed);
}

describe('message signatures', () => {
  const [any, strict] = pairs as [(typeof pairs)[0], (typeof pairs)[1]];

  it('are optional on a pair whose policy is any, and required where it is required', async () => {
    const service = createMockService({ institutions: pairs });
    expect((await service.handle(request(any))).status).toBe(201);
    expect((await service.handle(request(strict))).status).toBe(401);
    expect((await service.handle(request(strict, { message: true }))).status).toBe(200);
  });

  it('refuse a replayed nonce and a signature over other bytes, with the one 401', async () => {
    const service = createMockService({ institutions: pairs });
    expect((await service.handle(request(strict, { message: true, nonce: 'once' }))).status).toBe(
      201,
    );
    const replay = await service.handle(request(strict, { message: true, nonce: 'once' }));
    expect(replay.status).toBe(401);
    // A valid Authorization header, and a message signature over other bytes than those sent.
    const signed = signedRequest('POST', URL_USERS, any, {
      body,
      messageSignature: { signedBody: body.replace('"Efua"', '"Esi"') },
    });
    const refused = await service.handle(new Request(signed.url, signed));
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({
      detail: 'The Authorization header is missing or its signature does not verify.',
    });
  });

  it('refuse a stale signature', async () => {
    const service = createMockService({ institutions: pairs, now: () => Date.now() + 600_000 });
    expect((await service.handle(request(strict, { message: true }))).status).toBe(401);
  });
});

describe('Prefer: code=NNN', () => {
  const [any] = pairs as [(typeof pairs)[0]];

  it('answers the documented status with its example body and headers, and writes nothing', async () => {
    const service = createMockService({ institutions: pairs });
    const answer = await service.handle(request(any, { prefer: 'code=429' }));
    expect(answer.status).toBe(429);
    expect(answer.headers.get('retry-after')).toBe('1');
    expect(answer.headers.get('ratelimit')).toMatch(/^"per-institution";r=\d+;t=\d+$/);
    expect(await answer.json()).toMatchObject({ type: 'urn:institution-api:problem:rate-limited' });
    expect(service.directory.size).toBe(0);
  });

  it('picks a named example, and refuses an undocumented code naming the header', async () => {
    const service = createMockService({ institutions: pairs });
    const conflict = await service.handle(
      request(any, { prefer: 'code=409, example=ConflictProblem' }),
    );
    expect(await conflict.json()).toMatchObject({ detail: expect.stringMatching(/email/i) });
    const teapot = await service.handle(request(any, { prefer: 'code=418' }));
    expect(teapot.status).toBe(400);
    expect((await teapot.json()).errors[0].path).toBe('/headers/prefer');
  });

  it('is answered only after the signature verified', async () => {
    const service = createMockService({ institutions: pairs });
    const unsigned = new Request(URL_USERS, {
      method: 'POST',
      headers: { prefer: 'code=201' },
      body,
    });
    expect((await service.handle(unsigned)).status).toBe(401);
  });
});

it('reset forgets every user', async () => {
  const [any] = pairs as [(typeof pairs)[0]];
  const service = createMockService({ institutions: pairs });
  expect((await service.handle(request(any))).status).toBe(201);
  expect((await service.handle(request(any))).status).toBe(200);
  service.reset();
  expect((await service.handle(request(any))).status).toBe(201);
});

describe('the sandbox says why a signature failed', () => {
  const [any, strict] = pairs as [(typeof pairs)[0], (typeof pairs)[1]];
  const pretty = JSON.stringify(example, null, 2);
  /** Signed over `body` as the client writes it, sent pretty-printed. */
  const reserialized = () => {
    const signed = signedRequest('POST', URL_USERS, any, {
      body: pretty,
      authorization: { signedBody: body },
      messageSignature: false,
    });
    return new Request(signed.url, signed);
  };

  it.each([
    [
      'a body signed compact and sent pretty-printed',
      reserialized,
      { cause: 'body-bytes-differ', signedBody: { form: 'compact' } },
    ],
    [
      'a message signature replayed',
      () => request(strict, { message: true, nonce: 'replayed-nonce-0001' }),
      { cause: 'signature-base-differs', component: { name: 'nonce', problem: 'reused' } },
    ],
    [
      'no message signature where the pair requires one',
      () => request(strict),
      {
        cause: 'signature-base-differs',
        component: { name: 'signature-input', problem: 'missing' },
      },
    ],
  ])('%s: a 401 with its diagnosis', async (name, make, diagnosis) => {
    const service = createMockService({ institutions: pairs });
    if (name.includes('replayed')) await service.handle(make());
    const answer = await service.handle(make());
    expect(answer.status).toBe(401);
    expect(await answer.json()).toMatchObject({ status: 401, diagnosis });
  });

  it('not for an unknown key, nor with signatureDiagnosis: false', async () => {
    const uniform = {
      type: 'urn:institution-api:problem:unauthorized',
      title: 'Unauthorized',
      status: 401,
      detail: 'The Authorization header is missing or its signature does not verify.',
      instance: '/api/v1/external/users',
    };
    const quiet = createMockService({ institutions: pairs, signatureDiagnosis: false });
    expect(await (await quiet.handle(reserialized())).json()).toEqual(uniform);
    const service = createMockService({ institutions: pairs });
    const nobody = signedRequest(
      'POST',
      URL_USERS,
      { publicKey: 'nobody', secretKey: 'x' },
      { body, messageSignature: false },
    );
    const unknown = new Request(nobody.url, nobody);
    expect(await (await service.handle(unknown)).json()).toEqual(uniform);
  });
});
