import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { spec } from './spec.js';

const description = spec.info.description;

describe('the worked signing example in info.description', () => {
  const body = /```json\n(.+)\n```/.exec(description)?.[1] ?? '';
  const secret = /secret key\s+`([^`]+)`/.exec(description)?.[1] ?? '';
  const publicKey = /public key `([^`]+)`/.exec(description)?.[1] ?? '';
  const header = /```http\nAuthorization: (\S+)\n```/.exec(description)?.[1] ?? '';

  it('states the body, the keys and the header', () => {
    expect(body.startsWith('{')).toBe(true);
    expect(secret).not.toBe('');
    expect(header.startsWith(`${publicKey}:`)).toBe(true);
  });

  it('gives the signature a reader reproduces with openssl dgst -sha256 -hmac', () => {
    const signature = createHmac('sha256', secret).update(body, 'utf8').digest('hex');
    expect(header).toBe(`${publicKey}:${signature}`);
    expect(description).toContain(`printf '%s' '${body}'`);
    expect(description).toContain(`openssl dgst -sha256 -hmac '${secret}'`);
    expect(description).toContain(`(${Buffer.byteLength(body)} bytes`);
  });

  it('signs a body that is itself a valid request', async () => {
    const { schemaValidator } = await import('./spec.js');
    expect(schemaValidator('UserInput')(JSON.parse(body))).toBe(true);
  });
});

describe('the Assumptions section', () => {
  const assumptions = description.slice(description.indexOf('# Assumptions'));

  it.each([
    ['status codes', '`201 Created`'],
    ['existing user recognition', 'Ghana Card number in normalized form'],
    ['recognition needs the mobile number', 'only when the request also carries the same mobile'],
    ['shared record', 'one record shared by every institution'],
    ['text', 'byte for byte'],
    ['date range', '`0001-01-01` to\n  `9999-12-31`'],
    ['unique email', '`409 Conflict`'],
    ['institution scope', '`404 Not Found`'],
    ['unknown fields', 'Unknown request fields'],
    ['errors', 'RFC 9457'],
    ['mobile numbers', '+233XXXXXXXXX'],
    ['card numbers', 'GHA-123456789-0'],
    ['dates', '1990-05-17T00:00:00.000Z'],
    ['kyc', '`validFrom` and `validTo` are dates'],
    ['gender', 'free nullable string'],
    ['MOMO accounts', "wallet's mobile number"],
    ['field bounds', '64 KiB'],
    ['absent fields', "schema's `default`"],
    ['details follow the spec', 'needs no code change and\n  no migration'],
    [
      'a required field or a rename breaks',
      'a new required field or a rename is a breaking change',
    ],
    ['signature', 'HMAC-SHA256'],
    ['other algorithms', '`sha512`'],
    ['replay', 'replayed'],
    ['credentials', 'INSTITUTION_CREDENTIALS'],
    ['secrets at rest', 'CREDENTIALS_ENCRYPTION_KEY'],
    ['several processes', 'any number of processes on one PostgreSQL'],
    ['metrics', 'METRICS_PORT'],
    ['deployment', "image's steps on a fresh copy"],
    ['bulk import', '`institution-api import`'],
  ])('records the decision on %s', (_, text) => {
    expect(assumptions).toContain(text);
  });
});
