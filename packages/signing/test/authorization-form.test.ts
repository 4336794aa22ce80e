/**
 * An `Authorization` header written otherwise (src/authorization-form.ts): the public key it
 * names, as its sender meant it, which a sandbox looks its key pair up by.
 */
import { describe, expect, it } from 'vitest';
import { presentedPublicKey } from '../src/authorization-form.js';

const signature = 'a'.repeat(64);

describe('presentedPublicKey', () => {
  it.each<[string, string | undefined, string | undefined]>([
    ['as the service reads it', `pk_1:${signature}`, 'pk_1'],
    ['after a scheme word', `HMAC pk_1:${signature}`, 'pk_1'],
    ['after Bearer, with spaces', `  Bearer   pk_1 : ${signature} `, 'pk_1'],
    [
      'inside Basic credentials',
      `Basic ${Buffer.from(`pk_1:${signature}`).toString('base64')}`,
      'pk_1',
    ],
    ['as keyId of the older draft', `Signature keyId="pk_1",signature="x"`, 'pk_1'],
    ['as Credential', 'HMAC-SHA256 Credential=pk_1, Signature=x', 'pk_1'],
    ['before a space instead of the colon', `pk_1 ${signature}`, 'pk_1'],
    ['none: no colon', signature, undefined],
    ['none: no header', undefined, undefined],
  ])('%s', (_, header, key) => {
    expect(presentedPublicKey(header)).toBe(key);
  });
});
