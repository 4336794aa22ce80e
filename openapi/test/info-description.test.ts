import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { spec } from './spec.js';

const description = spec.info.description;

/** A header parameter as the bundle holds it. */
interface ParameterExample {
  name: string;
  in: string;
  required?: boolean;
  examples?: Record<string, { value: string }>;
}

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

describe('the worked message-signature example in info.description', () => {
  const body = /```json\n(.+)\n```/.exec(description)?.[1] ?? '';
  const secret = /secret key\s+`([^`]+)`/.exec(description)?.[1] ?? '';
  const fields = Object.fromEntries(
    [...(/```http\n(Content-Digest: [\s\S]+?)\n```/.exec(description)?.[1] ?? '').split('\n')].map(
      (line) => [line.slice(0, line.indexOf(': ')), line.slice(line.indexOf(': ') + 2)],
    ),
  );
  const base = /```text\n("@method"[\s\S]+?)\n```/.exec(description)?.[1] ?? '';
  const parameters = (spec.components as { parameters?: Record<string, ParameterExample> })
    .parameters;

  it('gives the Content-Digest of the worked body and the Signature of its base, as openssl reproduces them', () => {
    const digest = createHash('sha256').update(body, 'utf8').digest('base64');
    expect(fields['Content-Digest']).toBe(`sha-256=:${digest}:`);
    expect(base.split('\n')).toEqual([
      '"@method": POST',
      '"@path": /api/v1/external/users',
      `"content-digest": ${fields['Content-Digest']}`,
      `"@signature-params": ${fields['Signature-Input']?.replace(/^sig1=/, '')}`,
    ]);
    const mac = createHmac('sha256', secret).update(base, 'utf8').digest('base64');
    expect(fields.Signature).toBe(`sig1=:${mac}:`);
    expect(fields['Signature-Input']).toContain('keyid="demo-public-key";alg="hmac-sha256"');
  });

  it('is the example of the three header parameters', () => {
    for (const [name, parameter] of [
      ['Signature-Input', parameters?.SignatureInput],
      ['Signature', parameters?.Signature],
      ['Content-Digest', parameters?.ContentDigest],
    ] as const) {
      expect(parameter?.name).toBe(name);
      expect(parameter?.examples?.CreateUserSigned?.value).toBe(fields[name]);
    }
  });

  it('lists the three as optional header parameters of both operations', () => {
    for (const operation of [
      spec.paths['/api/v1/external/users']?.post,
      spec.paths['/api/v1/external/users/{id}']?.put,
    ]) {
      const refs = ((operation as { parameters?: { $ref: string }[] }).parameters ?? []).map(
        (parameter) => parameter.$ref,
      );
      expect(refs).toEqual(
        expect.arrayContaining([
          '#/components/parameters/SignatureInput',
          '#/components/parameters/Signature',
          '#/components/parameters/ContentDigest',
        ]),
      );
    }
    for (const parameter of Object.values(parameters ?? {})) {
      if (parameter.in === 'header') expect(parameter.required).toBe(false);
    }
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
    ['message signatures', 'RFC 9421 HTTP\n  Message Signature'],
    ['the policy', '`any` (the default'],
    [
      'the residual risk',
      'on a key pair whose policy is `any` a captured request can still be replayed',
    ],
    ['credentials', 'INSTITUTION_CREDENTIALS'],
    ['secrets at rest', 'CREDENTIALS_ENCRYPTION_KEY'],
    ['several processes', 'any number of processes on one PostgreSQL'],
    ['metrics', 'METRICS_PORT'],
    ['base URL', 'the local sandbox first, `http://localhost:8080`'],
    ['changelog', 'per released version and for the\n  changes not released yet'],
    ['deployment', "image's steps on a fresh copy"],
    ['bulk import', '`institution-api import`'],
  ])('records the decision on %s', (_, text) => {
    expect(assumptions).toContain(text);
  });
});
