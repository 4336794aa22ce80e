/**
 * The signed request of ../src/signed-request.ts is what the service verifies (checked with
 * @institution-api/signing's own verifiers), and each option changes only what it names.
 */
import { verifyMessageSignatureSync, verifySync } from '@institution-api/signing/node';
import { describe, expect, it } from 'vitest';
import {
  type SignedRequest,
  type SignedRequestOptions,
  signedRequest,
} from '../src/signed-request.ts';

const keys = { publicKey: 'pk_support', secretKey: 'sk_support_0123456789abcdef' };
const url = 'http://127.0.0.1:8080/api/v1/external/users';
const body = { firstName: 'Ama', lastName: 'Mensah 👩🏾' };
const text = JSON.stringify(body);

/** Whether the Authorization header verifies over `bytes` with the key pair's secret. */
function authorizationVerifies(request: SignedRequest, bytes = request.body ?? '') {
  const [publicKey, signature = ''] = (request.headers.authorization ?? '').split(':');
  return publicKey === keys.publicKey && verifySync(bytes, signature, keys.secretKey);
}

/** The verdict of the request's message signature for `forUrl`, as the server checks it. */
function messageVerdict(request: SignedRequest, forUrl = request.url) {
  return verifyMessageSignatureSync(
    {
      method: request.method,
      url: forUrl,
      header: (name) => request.headers[name],
      body: Buffer.from(request.body ?? ''),
    },
    { keyId: keys.publicKey, secretKey: keys.secretKey },
  ).status;
}

describe('signedRequest', () => {
  it('sends the body as JSON.stringify writes it, signed both ways over those bytes', () => {
    const request = signedRequest('POST', url, keys, { body });
    expect(request).toMatchObject({ method: 'POST', url, body: text });
    expect(request.headers['content-type']).toBe('application/json');
    expect(authorizationVerifies(request)).toBe(true);
    expect(messageVerdict(request)).toBe('valid');
    expect(request.headers['signature-input']).toMatch(
      /^sig1=\("@method" "@path" "content-digest"\);created=\d+;nonce="[^"]+";keyid="pk_support";alg="hmac-sha256"$/,
    );
    // a fresh nonce each time
    expect(signedRequest('POST', url, keys, { body }).headers['signature-input']).not.toBe(
      request.headers['signature-input'],
    );
  });

  const cases: [string, SignedRequestOptions, Partial<Record<string, unknown>>][] = [
    ['a string body sent as it is', { body: ' {"a": 1}\n' }, { auth: true, message: 'valid' }],
    ['no message signature', { body, messageSignature: false }, { auth: true, message: 'absent' }],
    [
      'a wrong secret for the Authorization header',
      { body, authorization: { secretKey: 'not-the-secret' } },
      { auth: false, message: 'valid' },
    ],
    [
      'a wrong secret for the message signature',
      { body, messageSignature: { secretKey: 'not-the-secret' } },
      { auth: true, message: 'invalid' },
    ],
    [
      'other bytes signed than those sent',
      { body, authorization: { signedBody: '{}' }, messageSignature: { signedBody: '{}' } },
      { auth: false, message: 'invalid' },
    ],
    [
      'a message signature for another URL',
      { body, messageSignature: { url: 'http://127.0.0.1:8080/api/v1/external/users/x' } },
      { auth: true, message: 'invalid' },
    ],
    [
      'sha-512 and @target-uri',
      {
        body,
        messageSignature: {
          digest: 'sha-512',
          components: ['@method', '@target-uri', 'content-digest'],
        },
      },
      { auth: true, message: 'valid' },
    ],
    [
      'a created long past',
      { body, messageSignature: { created: 1_000_000_000 } },
      { auth: true, message: 'invalid' },
    ],
  ];
  it.each(cases)('%s', (_, options, want) => {
    const request = signedRequest('POST', url, keys, options);
    expect({ auth: authorizationVerifies(request), message: messageVerdict(request) }).toEqual(
      want,
    );
  });

  it('makes the sha512/base64 Authorization header a server so configured takes', () => {
    const request = signedRequest('PUT', url, keys, {
      body,
      authorization: { algorithm: 'sha512', encoding: 'base64' },
    });
    const signature = request.headers.authorization?.split(':')[1] ?? '';
    expect(
      verifySync(text, signature, keys.secretKey, { algorithm: 'sha512', encoding: 'base64' }),
    ).toBe(true);
  });

  it('sends bytes exactly, and no content-type or Content-Digest without a body', () => {
    const bytes = new Uint8Array([0x7b, 0xff, 0x7d]);
    expect(signedRequest('POST', url, keys, { body: bytes }).body).toEqual(bytes);
    const bare = signedRequest('PUT', url, keys);
    expect(bare.body).toBeUndefined();
    expect(Object.keys(bare.headers).sort()).toEqual([
      'authorization',
      'signature',
      'signature-input',
    ]);
    expect(messageVerdict(bare)).toBe('valid');
  });

  it('sets the given headers last, whatever their case, and signs nothing without keys', () => {
    const request = signedRequest('POST', url, keys, {
      body,
      headers: { 'Content-Type': 'text/plain', Authorization: 'pk:0000', 'X-Request-Id': 'r-1' },
    });
    expect(request.headers).toMatchObject({
      'content-type': 'text/plain',
      authorization: 'pk:0000',
      'x-request-id': 'r-1',
    });
    expect(Object.keys(request.headers)).not.toContain('Content-Type');
    expect(signedRequest('POST', url, null, { body }).headers).toEqual({
      'content-type': 'application/json',
    });
  });
});
