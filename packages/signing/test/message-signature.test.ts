/**
 * RFC 9421 message signatures (the spec's security scheme `MessageSignature`), run against both
 * implementations so they cannot drift apart: the published vectors are reproduced, a signature
 * verifies over exactly what it covers, and each rule of the scheme refuses what breaks it.
 */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MAX_SKEW_SECONDS,
  decideMessageSignature,
  describeMessageSignature,
  MAX_NONCE_LENGTH,
  type MessageSignatureHeaders,
  type MessageSignatureOptions,
  type MessageSignatureVerdict,
  type MessageToSign,
  type ReceivedMessage,
  signatureBaseFor,
  signMessage,
  type VerifyMessageSignatureOptions,
  verifyMessageSignature,
} from '../src/index.js';
import { signMessageSync, verifyMessageSignatureSync } from '../src/node.js';
import { createMessageSigner as nodeMessageSigner } from '../src/signer-node.js';
import { createMessageSigner as webMessageSigner } from '../src/signer-web.js';
import { errorText, LEAK_SECRET } from './support/contract.js';
import { type MessageSignatureVector, messageSignatureVectors } from './support/vectors.js';

interface Implementation {
  sign(message: MessageToSign, options: MessageSignatureOptions): Promise<MessageSignatureHeaders>;
  verify(
    message: ReceivedMessage,
    options: VerifyMessageSignatureOptions,
  ): Promise<MessageSignatureVerdict>;
}

const implementations: [string, Implementation][] = [
  [
    'node:crypto',
    {
      sign: async (message, options) => signMessageSync(message, options),
      verify: async (message, options) => verifyMessageSignatureSync(message, options),
    },
  ],
  ['Web Crypto', { sign: signMessage, verify: verifyMessageSignature }],
];

const URL_ = 'http://localhost:8080/api/v1/external/users/01a21589-05e1-7046-97a8-6dd393cd6e93';
const BODY = '{"email":"ama.mensah@example.com","firstName":"Ama","lastName":"Mensah"}';
const KEY = { keyId: 'test_public_0123', secretKey: 'test_secret_0123456789abcdef' };
const NOW = 1_700_000_000;

/** The request as a server receives it: these headers, these bytes, this URL. */
function received(
  headers: MessageSignatureHeaders | Record<string, string | undefined>,
  overrides: Partial<Pick<ReceivedMessage, 'method' | 'url'>> & { body?: string } = {},
): ReceivedMessage {
  return {
    method: overrides.method ?? 'PUT',
    url: overrides.url ?? URL_,
    header: (name) => (headers as Record<string, string | undefined>)[name],
    body: new TextEncoder().encode(overrides.body ?? BODY),
  };
}

function vectorKey(vector: MessageSignatureVector): string | Uint8Array {
  return vector.secretKeyBase64 === undefined
    ? (vector.secretKey as string)
    : new Uint8Array(Buffer.from(vector.secretKeyBase64, 'base64'));
}

function vectorHeaders(vector: MessageSignatureVector): Record<string, string> {
  return {
    ...vector.headers,
    'content-digest': vector.contentDigest,
    'signature-input': vector.signatureInput,
    signature: vector.signature,
  };
}

function paramsOf(vector: MessageSignatureVector) {
  const input = vector.signatureInput;
  const number = (name: string) => {
    const match = new RegExp(`;${name}=(\\d+)`).exec(input);
    return match ? Number(match[1]) : undefined;
  };
  return {
    label: input.slice(0, input.indexOf('=')),
    created: number('created') as number,
    expires: number('expires'),
    nonce: /;nonce="([^"]*)"/.exec(input)?.[1],
    keyId: /;keyid="([^"]*)"/.exec(input)?.[1] as string,
    digest: vector.contentDigest.startsWith('sha-512')
      ? ('sha-512' as const)
      : ('sha-256' as const),
  };
}

describe('signatureBaseFor', () => {
  it.each(messageSignatureVectors.map((v) => [v.name, v] as const))(
    '%s: gives the published signature base',
    (_, vector) => {
      const headers = vectorHeaders(vector);
      const base = signatureBaseFor(
        { method: vector.method, url: vector.url, header: (name) => headers[name] },
        vector.signatureInput,
        paramsOf(vector).label,
      );
      expect(base).toBe(vector.signatureBase);
    },
  );

  it("reproduces RFC 9421's own hmac-sha256 example (Appendix B.2.5)", () => {
    const rfc = messageSignatureVectors[0] as MessageSignatureVector;
    expect(rfc.name).toMatch(/RFC 9421 Appendix B\.2\.5/);
    expect(rfc.signatureBase).toBe(
      [
        '"date": Tue, 20 Apr 2021 02:07:55 GMT',
        '"@authority": example.com',
        '"content-type": application/json',
        '"@signature-params": ("date" "@authority" "content-type");created=1618884473;keyid="test-shared-secret"',
      ].join('\n'),
    );
    expect(rfc.signature).toBe('sig-b25=:pxcQw6G3AjtMBQjwo8XzkZf/bws5LelbaMk5rGIGtE8=:');
  });
});

describe.each(implementations)('message signatures on %s', (_, impl) => {
  const sign = (
    message: Partial<MessageToSign> = {},
    options: Partial<MessageSignatureOptions> = {},
  ) =>
    impl.sign(
      { method: 'PUT', url: URL_, body: BODY, ...message },
      { ...KEY, created: NOW, ...options },
    );
  const verify = (message: ReceivedMessage, options: Partial<VerifyMessageSignatureOptions> = {}) =>
    impl.verify(message, { ...KEY, now: NOW, ...options });

  it.each(messageSignatureVectors.slice(1).map((v) => [v.name, v] as const))(
    'reproduces our vector: %s',
    async (_, vector) => {
      const { label, created, expires, nonce, keyId, digest } = paramsOf(vector);
      const headers = await impl.sign(
        { method: vector.method, url: vector.url, body: vector.body },
        { keyId, secretKey: vectorKey(vector), created, expires, nonce, label, digest },
      );
      expect(headers).toEqual({
        'content-digest': vector.contentDigest,
        'signature-input': vector.signatureInput,
        signature: vector.signature,
      });
    },
  );

  it.each(messageSignatureVectors.slice(1).map((v) => [v.name, v] as const))(
    'accepts our vector: %s',
    async (_, vector) => {
      const { created, nonce, keyId } = paramsOf(vector);
      const verdict = await impl.verify(
        {
          method: vector.method,
          url: vector.url,
          header: (name) => vectorHeaders(vector)[name],
          body: new Uint8Array(Buffer.from(vector.bodyBase64, 'base64')),
        },
        { keyId, secretKey: vectorKey(vector), now: created },
      );
      expect(verdict).toMatchObject({ status: 'valid', created, nonce });
    },
  );

  it('covers @method, @path and content-digest by default, with the parameters the scheme needs', async () => {
    const headers = await sign({}, { nonce: 'n-1' });
    expect(headers['signature-input']).toBe(
      `sig1=("@method" "@path" "content-digest");created=${NOW};nonce="n-1";keyid="${KEY.keyId}";alg="hmac-sha256"`,
    );
    expect(headers['content-digest']).toMatch(/^sha-256=:[A-Za-z0-9+/]{43}=:$/);
    expect(headers.signature).toMatch(/^sig1=:[A-Za-z0-9+/]{43}=:$/);
  });

  it('signs a request without a body over @method and @path, with no Content-Digest', async () => {
    const headers = await sign({ body: undefined, method: 'GET' });
    expect(headers['content-digest']).toBeUndefined();
    expect(headers['signature-input']).toMatch(/^sig1=\("@method" "@path"\);/);
    expect(await verify(received(headers, { method: 'GET', body: '' }))).toMatchObject({
      status: 'valid',
    });
  });

  it('gives every signature a new nonce, and the current time when created is not given', async () => {
    const first = await impl.sign({ method: 'PUT', url: URL_, body: BODY }, KEY);
    const second = await impl.sign({ method: 'PUT', url: URL_, body: BODY }, KEY);
    const nonce = (h: MessageSignatureHeaders) => /nonce="([^"]+)"/.exec(h['signature-input'])?.[1];
    expect(nonce(first)).toMatch(/^[0-9a-f]{32}$/);
    expect(nonce(first)).not.toBe(nonce(second));
    // Its first 12 digits are the time it was made, so later nonces sort after earlier ones.
    expect(
      Math.abs(Number.parseInt(nonce(first)?.slice(0, 12) ?? '', 16) - Date.now()),
    ).toBeLessThan(5000);
    const created = Number(/created=(\d+)/.exec(first['signature-input'])?.[1]);
    expect(Math.abs(created - Date.now() / 1000)).toBeLessThan(5);
  });

  it('verifies a signature over the exact URL, method and bytes it was made for', async () => {
    const headers = await sign({}, { nonce: 'n-2' });
    expect(await verify(received(headers))).toEqual({
      status: 'valid',
      label: 'sig1',
      nonce: 'n-2',
      created: NOW,
    });
  });

  it('is absent when neither field is sent (the key pair policy decides)', async () => {
    expect(await verify(received({}))).toEqual({ status: 'absent' });
  });

  const refusals: [
    string,
    (h: MessageSignatureHeaders) => Promise<MessageSignatureVerdict>,
    string,
  ][] = [
    [
      'the signature moved to another path (a captured update replayed on another user)',
      (h) => verify(received(h, { url: 'http://localhost:8080/api/v1/external/users/other' })),
      'wrong-signature',
    ],
    ['another method', (h) => verify(received(h, { method: 'POST' })), 'wrong-signature'],
    [
      'a body changed under the signature',
      (h) => verify(received(h, { body: BODY.replace('Ama', 'Abena') })),
      'content-digest-mismatch',
    ],
    [
      'a body and Content-Digest both changed under the signature',
      async (h) => {
        const body = BODY.replace('Ama', 'Abena');
        const other = await sign({ body });
        return verify(received({ ...h, 'content-digest': other['content-digest'] }, { body }));
      },
      'wrong-signature',
    ],
    [
      'another secret',
      (h) => verify(received(h), { secretKey: 'test_secret_other' }),
      'wrong-signature',
    ],
    [
      'another key id',
      (h) => verify(received(h), { keyId: 'test_public_other' }),
      'no-signature-for-key',
    ],
    ['created too old', (h) => verify(received(h), { now: NOW + 301 }), 'stale'],
    ['created in the future', (h) => verify(received(h), { now: NOW - 301 }), 'stale'],
    [
      'Signature without Signature-Input',
      (h) => verify(received({ ...h, 'signature-input': undefined })),
      'malformed',
    ],
    [
      'a Signature-Input that is no structured dictionary',
      (h) => verify(received({ ...h, 'signature-input': 'sig1=("@method" "@path"' })),
      'malformed',
    ],
    [
      'a Signature that is no byte sequence',
      (h) => verify(received({ ...h, signature: 'sig1="abc"' })),
      'malformed',
    ],
  ];

  it.each(refusals)('refuses %s', async (_, check, reason) => {
    const headers = await sign();
    expect(await check(headers)).toEqual({ status: 'invalid', reason });
  });

  it('refuses a signature whose skew window is configured shorter', async () => {
    const headers = await sign();
    expect(await verify(received(headers), { now: NOW + 31, maxSkewSeconds: 30 })).toEqual({
      status: 'invalid',
      reason: 'stale',
    });
    expect(await verify(received(headers), { now: NOW + 30, maxSkewSeconds: 30 })).toMatchObject({
      status: 'valid',
    });
  });

  it('honours expires', async () => {
    const headers = await sign({}, { expires: NOW + 10 });
    expect(await verify(received(headers), { now: NOW + 9 })).toMatchObject({ status: 'valid' });
    expect(await verify(received(headers), { now: NOW + 10 })).toEqual({
      status: 'invalid',
      reason: 'expired',
    });
  });

  it.each([
    [
      'without content-digest (a body then goes unchecked)',
      ['@method', '@path'],
      'missing-required-component',
    ],
    ['without @method', ['@path', 'content-digest'], 'missing-required-component'],
    ['without @path or @target-uri', ['@method', 'content-digest'], 'missing-required-component'],
  ] as const)('refuses a signature %s', async (_, components, reason) => {
    const headers = await sign({}, { components: [...components] });
    expect(await verify(received(headers))).toEqual({ status: 'invalid', reason });
  });

  it('accepts @target-uri in place of @path, and more components than required', async () => {
    const headers = await sign(
      { headers: { 'content-type': 'application/json' } },
      { components: ['@method', '@target-uri', '@authority', 'content-digest', 'content-type'] },
    );
    const all = { ...headers, 'content-type': 'application/json' };
    expect(await verify(received(all))).toMatchObject({ status: 'valid' });
    expect(await verify(received({ ...all, 'content-type': 'text/plain' }))).toEqual({
      status: 'invalid',
      reason: 'wrong-signature',
    });
  });

  it('refuses another algorithm, a missing nonce and a missing created', async () => {
    const headers = await sign({}, { nonce: 'n-3' });
    const input = headers['signature-input'];
    const edited = (value: string) => verify(received({ ...headers, 'signature-input': value }));
    expect(await edited(input.replace('hmac-sha256', 'ed25519'))).toEqual({
      status: 'invalid',
      reason: 'unsupported-algorithm',
    });
    expect(await edited(input.replace(';nonce="n-3"', ''))).toEqual({
      status: 'invalid',
      reason: 'missing-nonce',
    });
    expect(await edited(input.replace(`;created=${NOW}`, ''))).toEqual({
      status: 'invalid',
      reason: 'missing-created',
    });
  });

  it('refuses a covered component with parameters and a covered field that is missing', async () => {
    const headers = await sign({}, { nonce: 'n-4' });
    const input = headers['signature-input'];
    expect(
      await verify(
        received({ ...headers, 'signature-input': input.replace('"@path"', '"@path";req') }),
      ),
    ).toEqual({ status: 'invalid', reason: 'malformed' });
    expect(await verify(received({ ...headers, 'content-digest': undefined }))).toEqual({
      status: 'invalid',
      reason: 'malformed',
    });
  });

  it('checks its own signature among others, whatever its label', async () => {
    const ours = await sign({}, { label: 'institution' });
    const theirs = await sign(
      {},
      { keyId: 'gateway', secretKey: 'test_secret_gateway', label: 'gw' },
    );
    const headers = {
      'content-digest': ours['content-digest'],
      'signature-input': `${theirs['signature-input']}, ${ours['signature-input']}`,
      signature: `${theirs.signature}, ${ours.signature}`,
    };
    expect(await verify(received(headers))).toMatchObject({
      status: 'valid',
      label: 'institution',
    });
  });

  it('never puts the secret in an error', async () => {
    const error = await impl
      .sign({ method: 'PUT', url: URL_, body: BODY }, { keyId: '', secretKey: LEAK_SECRET })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(errorText(error)).not.toContain(LEAK_SECRET);
  });
});

describe('createMessageSigner', () => {
  it('signs each request anew on node:crypto, synchronously', () => {
    const signer = nodeMessageSigner(KEY);
    const first = signer({ method: 'POST', url: URL_, body: BODY });
    const second = signer({ method: 'POST', url: URL_, body: BODY });
    expect(first).not.toBeInstanceOf(Promise);
    expect((first as MessageSignatureHeaders)['signature-input']).not.toBe(
      (second as MessageSignatureHeaders)['signature-input'],
    );
  });

  it('gives the same kind of headers on Web Crypto, which node verifies', async () => {
    const headers = await webMessageSigner(KEY)({ method: 'PUT', url: URL_, body: BODY });
    expect(verifyMessageSignatureSync(received(headers), KEY)).toMatchObject({ status: 'valid' });
  });

  it.each([
    ['node:crypto', nodeMessageSigner],
    ['Web Crypto', webMessageSigner],
  ])('refuses empty credentials at creation on %s', (_, create) => {
    expect(() => create({ keyId: '', secretKey: 'x' })).toThrow(TypeError);
    expect(() => create({ keyId: 'k', secretKey: '' })).toThrow(TypeError);
  });
});

describe('decideMessageSignature', () => {
  const valid = { status: 'valid', label: 'sig1', nonce: 'n-1', created: 1_700_000_000 } as const;

  it('accepts a request without one only when the key pair does not require it', () => {
    expect(decideMessageSignature({ status: 'absent' }, false)).toEqual({ action: 'accept' });
    expect(decideMessageSignature({ status: 'absent' }, true)).toEqual({
      action: 'refuse',
      reason: 'missing',
    });
  });

  it('refuses an invalid one under either policy, with its reason', () => {
    for (const required of [false, true]) {
      expect(
        decideMessageSignature({ status: 'invalid', reason: 'wrong-signature' }, required),
      ).toEqual({ action: 'refuse', reason: 'wrong-signature' });
    }
  });

  it('claims a valid nonce until the end of second created + max skew', () => {
    expect(decideMessageSignature(valid, true, 60)).toEqual({
      action: 'claim-nonce',
      nonce: 'n-1',
      expiresAt: (1_700_000_000 + 61) * 1000,
    });
    expect(decideMessageSignature(valid, false)).toMatchObject({
      expiresAt: (1_700_000_000 + DEFAULT_MAX_SKEW_SECONDS + 1) * 1000,
    });
  });

  it('refuses a nonce longer than any verifier records', () => {
    expect(
      decideMessageSignature({ ...valid, nonce: 'x'.repeat(MAX_NONCE_LENGTH + 1) }, false),
    ).toEqual({ action: 'refuse', reason: 'nonce-too-long' });
    expect(
      decideMessageSignature({ ...valid, nonce: 'x'.repeat(MAX_NONCE_LENGTH) }, false),
    ).toMatchObject({ action: 'claim-nonce' });
  });
});

describe('describeMessageSignature', () => {
  it("says what the signature for the key covers and its parameters, another party's aside", () => {
    const headers = signMessageSync(
      { method: 'PUT', url: URL_, body: BODY },
      { ...KEY, created: NOW, expires: NOW + 60, nonce: 'n-1', label: 'mine' },
    );
    const gateway = 'gw=("@method");created=1;keyid="gateway"';
    const message = received({
      ...headers,
      'signature-input': `${gateway}, ${headers['signature-input']}`,
      signature: `gw=:AAAA:, ${headers.signature}`,
    });
    expect(describeMessageSignature(message, KEY.keyId)).toEqual({
      label: 'mine',
      components: ['"@method"', '"@path"', '"content-digest"'],
      parameters: {
        created: NOW,
        expires: NOW + 60,
        nonce: 'n-1',
        keyid: KEY.keyId,
        alg: 'hmac-sha256',
      },
    });
    expect(describeMessageSignature(message, 'nobody')).toBeUndefined();
    expect(
      describeMessageSignature(
        received({ 'signature-input': 'x=(', signature: 'x=:AA==:' }),
        KEY.keyId,
      ),
    ).toBeUndefined();
  });
});
