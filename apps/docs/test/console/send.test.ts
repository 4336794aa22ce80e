/** Signing and addressing a console request, with the signing package's Web Crypto signer. */
import {
  formatAuthorization,
  signSync,
  verifyMessageSignatureSync,
} from '@institution-api/signing/node';
import { describe, expect, it } from 'vitest';
import { authorization, bodyBytes, operationUrl, signedHeaders } from '../../console/src/send.js';
import type { ConsoleOperation } from '../../console/src/spec-types.js';

const update: ConsoleOperation = {
  operationId: 'updateUser',
  method: 'PUT',
  path: '/api/v1/external/users/{id}',
  summary: 'Update a user',
  pathParameters: ['id'],
  examples: [],
  responses: {},
};

describe('authorization', () => {
  it('signs the UTF-8 bytes, as the node signer does', async () => {
    const text = '{"firstName":"Ɛfua"}';
    const keys = { publicKey: 'pk_send', secretKey: 'sk_send_0123456789' };
    expect(await authorization(keys, bodyBytes(text))).toBe(
      formatAuthorization(keys.publicKey, signSync(text, keys.secretKey)),
    );
    expect(bodyBytes(text)).toHaveLength(Buffer.byteLength(text));
  });

  it('refuses a public key the server cannot accept, and an empty secret, without the keys', async () => {
    const bytes = bodyBytes('{}');
    await expect(
      authorization({ publicKey: 'pk:x', secretKey: 'secret-1' }, bytes),
    ).rejects.toThrow("publicKey must not contain ':'");
    await expect(authorization({ publicKey: 'pk', secretKey: '' }, bytes)).rejects.toThrow(
      'the secret key is empty',
    );
  });
});

describe('signedHeaders', () => {
  const keys = { publicKey: 'pk_send', secretKey: 'sk_send_0123456789' };
  const url = 'http://localhost:8080/api/v1/external/users/a%2Fb';
  const text = '{"firstName":"Ɛfua"}';

  it('signs both ways: Authorization, and a message signature for the method, URL and bytes', async () => {
    const headers = await signedHeaders(keys, 'PUT', url, bodyBytes(text));
    expect(headers.Authorization).toBe(await authorization(keys, bodyBytes(text)));
    const fields = new Map(
      Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]),
    );
    const received = (method: string, at: string) =>
      verifyMessageSignatureSync(
        { method, url: at, header: (name) => fields.get(name), body: bodyBytes(text) },
        { keyId: keys.publicKey, secretKey: keys.secretKey },
      );
    expect(received('PUT', url)).toMatchObject({ status: 'valid' });
    expect(received('POST', url)).toMatchObject({ status: 'invalid' });
    expect(received('PUT', 'http://localhost:8080/api/v1/external/users/other')).toMatchObject({
      status: 'invalid',
    });
  });

  it('signs each request anew: a new nonce', async () => {
    const first = await signedHeaders(keys, 'POST', url, bodyBytes(text));
    const second = await signedHeaders(keys, 'POST', url, bodyBytes(text));
    expect(second['Signature-Input']).not.toBe(first['Signature-Input']);
  });
});

describe('operationUrl', () => {
  it('puts the encoded parameter in the path under the base URL', () => {
    expect(operationUrl('http://localhost:8080/', update, { id: ' a/b?c ' })).toBe(
      'http://localhost:8080/api/v1/external/users/a%2Fb%3Fc',
    );
  });

  it('names an empty parameter', () => {
    expect(() => operationUrl('http://localhost:8080', update, { id: '' })).toThrow('id is empty');
  });
});
