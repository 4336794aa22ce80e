/**
 * The diagnosis of a signature that does not verify (src/signature-diagnosis.ts; spec:
 * `SignatureDiagnosis`): each mistake a signer makes, made here with bare node:crypto as a signer
 * in another language would make it, gets its cause and names what differs; a request whose
 * signatures hold gets none; and no diagnosis holds the secret key or a signature the verifier
 * computed with it.
 */
import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { DiagnosisCrypto } from '../src/diagnosis-crypto.js';
import { nodeDiagnosisCrypto } from '../src/diagnosis-crypto-node.js';
import {
  type DiagnoseSignatureOptions,
  type SignatureDiagnosis,
  signatureBaseFor,
} from '../src/index.js';
import { signMessageSync, signSync } from '../src/node.js';
import { diagnoseSignatureWith } from '../src/signature-diagnosis.js';
import { diagnose as diagnoseSignature, hmac, NOW, request, URL_ } from './support/diagnosis.js';

const PUBLIC = 'pk_diagnosis_0123';
// Base64url of random bytes, as the reference server issues secrets: it decodes as base64 too.
const SECRET = 'q7Hc0x9Zl2vB4sN8mT1rY6wE3uI5oP';
const HEX_SECRET = '00112233445566778899aabbccddeeff';
const VALUE = {
  email: 'efua.owusu@example.com',
  firstName: 'Ɛfua',
  image: 'https://img.example/e.png',
};
const COMPACT = JSON.stringify(VALUE);
const PRETTY = JSON.stringify(VALUE, null, 2);

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Both signatures made right for `body` as sent, with `mistakes` to the message signature. */
function signed(
  body: string,
  message: {
    url?: string;
    method?: string;
    body?: string;
    created?: number;
    secret?: string | Buffer;
  } = {},
) {
  return {
    authorization: `${PUBLIC}:${signSync(body, SECRET)}`,
    ...signMessageSync(
      { method: message.method ?? 'POST', url: message.url ?? URL_, body: message.body ?? body },
      {
        keyId: PUBLIC,
        secretKey:
          message.secret === undefined ? SECRET : new Uint8Array(Buffer.from(message.secret)),
        created: message.created ?? NOW,
      },
    ),
  };
}

/**
 * The options of a diagnosis for the test's key pair. The budget's time bound is a backstop for
 * a busy machine (wall time on Web Crypto): out of the way here, so that the answers compared do
 * not depend on how busy the machine is, unless a test sets it.
 */
const options = (extra: Partial<DiagnoseSignatureOptions> = {}): DiagnoseSignatureOptions => ({
  publicKey: PUBLIC,
  secretKey: SECRET,
  now: NOW,
  ...extra,
  budget: { maxMilliseconds: 60_000, ...extra.budget },
});

const sentBody = { length: Buffer.byteLength(PRETTY), sha256: sha256(PRETTY) };

describe('diagnoseSignature: the Authorization signature', () => {
  it.each<
    [
      string,
      Record<string, string>,
      Partial<SignatureDiagnosis>,
      Partial<DiagnoseSignatureOptions>?,
    ]
  >([
    [
      'compact JSON signed, pretty JSON sent',
      { authorization: `${PUBLIC}:${hmac(SECRET, COMPACT)}` },
      {
        cause: 'body-bytes-differ',
        signedBody: {
          length: Buffer.byteLength(COMPACT),
          sha256: sha256(COMPACT),
          form: 'compact',
        },
      },
    ],
    [
      'the bytes sent with a final newline signed',
      { authorization: `${PUBLIC}:${hmac(SECRET, `${PRETTY}\n`)}` },
      {
        cause: 'body-bytes-differ',
        signedBody: expect.objectContaining({ form: 'with a final newline' }),
      },
    ],
    [
      "non-ASCII escaped, as Python's json.dumps writes it",
      {
        authorization: `${PUBLIC}:${hmac(SECRET, '{"email": "efua.owusu@example.com", "firstName": "\\u0190fua", "image": "https://img.example/e.png"}')}`,
      },
      {
        cause: 'body-bytes-differ',
        signedBody: expect.objectContaining({
          form: "with a space after each ',' and ':' (Python's json.dumps), non-ASCII written as \\uXXXX",
        }),
      },
    ],
    [
      'the public key as the HMAC key',
      { authorization: `${PUBLIC}:${hmac(PUBLIC, PRETTY)}` },
      { cause: 'key-misused', key: 'public-key' },
    ],
    [
      'the secret key decoded from base64',
      { authorization: `${PUBLIC}:${hmac(Buffer.from(SECRET, 'base64url'), PRETTY)}` },
      { cause: 'key-misused', key: 'secret-base64-decoded' },
    ],
    [
      'the secret key decoded from hex',
      { authorization: `${PUBLIC}:${hmac(Buffer.from(HEX_SECRET, 'hex'), PRETTY)}` },
      { cause: 'key-misused', key: 'secret-hex-decoded' },
      { secretKey: HEX_SECRET },
    ],
    [
      'another secret key',
      { authorization: `${PUBLIC}:${hmac('another-secret', PRETTY)}` },
      { cause: 'no-known-mistake' },
    ],
    [
      'the signature in uppercase hex (malformed)',
      { authorization: `${PUBLIC}:${hmac(SECRET, PRETTY).toUpperCase()}` },
      {
        cause: 'authorization-malformed',
        explanation: expect.stringMatching(
          /uppercase hexadecimal: write it in lowercase \(64 lowercase hexadecimal characters \(HMAC-SHA256, hex\)\)\. Written so, the signature is right/,
        ),
      },
    ],
  ])('%s: %j', async (_, headers, want, extra) => {
    const diagnosis = await diagnoseSignature(request(PRETTY, headers), options(extra));
    expect(diagnosis).toMatchObject({ signature: 'authorization', body: sentBody, ...want });
    expect(diagnosis?.signatureBase).toBeUndefined();
  });

  it('diagnoses the options of the deployment (SHA-512, base64)', async () => {
    const signature = createHmac('sha512', SECRET).update(COMPACT).digest('base64');
    const diagnosis = await diagnoseSignature(
      request(PRETTY, { authorization: `${PUBLIC}:${signature}` }),
      options({ signature: { algorithm: 'sha512', encoding: 'base64' } }),
    );
    expect(diagnosis).toMatchObject({
      cause: 'body-bytes-differ',
      signedBody: { form: 'compact' },
    });
  });
});

describe('diagnoseSignature: the message signature', () => {
  const base = (headers: Record<string, string>, url = URL_) =>
    signatureBaseFor(
      { method: 'POST', url, header: (name) => headers[name] },
      headers['signature-input'] ?? '',
      'sig1',
    );

  it.each<
    [
      string,
      Record<string, string>,
      Partial<SignatureDiagnosis>,
      Partial<DiagnoseSignatureOptions>?,
    ]
  >([
    [
      'created an hour before the clock',
      signed(PRETTY, { created: NOW - 3600 }),
      {
        component: {
          name: 'created',
          problem: 'stale',
          signed: String(NOW - 3600),
          computed: `${NOW} ± 300`,
        },
      },
    ],
    [
      'content-digest of the compact JSON, pretty JSON sent',
      { ...signed(PRETTY, { body: COMPACT }) },
      {
        component: {
          name: 'content-digest',
          problem: 'mismatched',
          signed: `sha-256=:${createHash('sha256').update(COMPACT).digest('base64')}:`,
          computed: `sha-256=:${createHash('sha256').update(PRETTY).digest('base64')}:`,
        },
        signedBody: {
          length: Buffer.byteLength(COMPACT),
          sha256: sha256(COMPACT),
          form: 'compact',
        },
      },
    ],
    [
      '@path signed with a trailing slash',
      signed(PRETTY, { url: `${URL_}/` }),
      {
        component: {
          name: '@path',
          problem: 'mismatched',
          signed: '/api/v1/external/users/',
          computed: '/api/v1/external/users',
        },
      },
    ],
    [
      '@path signed as the whole URL',
      // The signer put the URL where the path goes: its base has the URL on the @path line.
      (() => {
        const headers = signed(PRETTY);
        const wrongBase = base(headers).replace(
          '"@path": /api/v1/external/users',
          `"@path": ${URL_}`,
        );
        return { ...headers, signature: `sig1=:${hmac(SECRET, wrongBase, 'base64')}:` };
      })(),
      {
        component: {
          name: '@path',
          problem: 'mismatched',
          signed: URL_,
          computed: '/api/v1/external/users',
        },
      },
    ],
    [
      '@path of a proxy that strips a prefix the signer saw',
      signed(PRETTY),
      {
        component: {
          name: '@path',
          problem: 'mismatched',
          signed: '/api/v1/external/users',
          computed: '/sandbox/api/v1/external/users',
        },
      },
    ],
    [
      '@method in lowercase',
      signed(PRETTY, { method: 'post' }),
      { component: { name: '@method', problem: 'mismatched', signed: 'post', computed: 'POST' } },
    ],
    [
      'the base with CRLF line ends',
      (() => {
        const headers = signed(PRETTY);
        return {
          ...headers,
          signature: `sig1=:${hmac(SECRET, base(headers).replaceAll('\n', '\r\n'), 'base64')}:`,
        };
      })(),
      { explanation: expect.stringMatching(/^The signature base you signed has CRLF line ends/) },
    ],
    [
      'keyed with the public key',
      signed(PRETTY, { secret: PUBLIC }),
      { cause: 'key-misused', key: 'public-key' },
    ],
    [
      'no signature for the key of the Authorization header',
      {
        ...signed(PRETTY),
        'signature-input': signed(PRETTY)['signature-input'].replace(
          `keyid="${PUBLIC}"`,
          'keyid="pk_other"',
        ),
      },
      {
        component: { name: 'keyid', problem: 'mismatched', computed: PUBLIC },
        explanation: expect.stringMatching(/its keyid is another value, not shown/),
      },
    ],
    [
      'content-digest not covered',
      (() => {
        const headers = {
          authorization: `${PUBLIC}:${signSync(PRETTY, SECRET)}`,
          ...signMessageSync(
            { method: 'POST', url: URL_ },
            { keyId: PUBLIC, secretKey: SECRET, created: NOW },
          ),
        };
        return headers;
      })(),
      { component: { name: 'content-digest', problem: 'missing' } },
    ],
    [
      'Signature without Signature-Input',
      {
        authorization: `${PUBLIC}:${signSync(PRETTY, SECRET)}`,
        signature: signed(PRETTY).signature,
      },
      { component: { name: 'signature-input', problem: 'missing' } },
    ],
    [
      'none, on a key pair that requires one',
      { authorization: `${PUBLIC}:${signSync(PRETTY, SECRET)}` },
      { component: { name: 'signature-input', problem: 'missing' } },
      { messageSignatureRequired: true },
    ],
    [
      'a valid one whose nonce was used before',
      signed(PRETTY),
      { component: expect.objectContaining({ name: 'nonce', problem: 'reused' }) },
      { nonceReused: true },
    ],
  ])('%s', async (name, headers, want, extra) => {
    const url = name.includes('proxy')
      ? 'http://127.0.0.1:8080/sandbox/api/v1/external/users'
      : URL_;
    const diagnosis = await diagnoseSignature(request(PRETTY, headers, { url }), options(extra));
    expect(diagnosis).toMatchObject({
      cause: 'signature-base-differs',
      signature: 'message-signature',
      body: sentBody,
      ...want,
    });
    if (headers['signature-input']?.includes(`keyid="${PUBLIC}"`)) {
      expect(diagnosis?.signatureBase).toBe(base(headers, url));
    }
  });

  it.each([
    ['both signatures hold', signed(PRETTY), {}],
    [
      'no message signature on a key pair that accepts the header alone',
      { authorization: `${PUBLIC}:${signSync(PRETTY, SECRET)}` },
      {},
    ],
  ])('gives none when %s', async (_, headers, extra) => {
    expect(await diagnoseSignature(request(PRETTY, headers), options(extra))).toBeUndefined();
  });
});

describe('diagnoseSignature: one signature only', () => {
  const headers = {
    ...signed(PRETTY, { created: NOW - 3600 }),
    authorization: `${PUBLIC}:${hmac(SECRET, COMPACT)}`,
  };
  it.each([
    [undefined, 'body-bytes-differ'],
    ['authorization', 'body-bytes-differ'],
    ['message-signature', 'signature-base-differs'],
  ] as const)('only %s: %s', async (only, cause) => {
    const diagnosis = await diagnoseSignature(request(PRETTY, headers), options({ only }));
    expect(diagnosis?.cause).toBe(cause);
  });

  it('only authorization: none when it holds, whatever the message signature', async () => {
    const stale = signed(PRETTY, { created: NOW - 3600 });
    expect(
      await diagnoseSignature(request(PRETTY, stale), options({ only: 'authorization' })),
    ).toBeUndefined();
  });
});

describe('what a diagnosis never holds', () => {
  it('no secret key, no signature computed with it, whatever the mistake', async () => {
    const headersOf: Record<string, string>[] = [
      { authorization: `${PUBLIC}:${hmac(SECRET, COMPACT)}` },
      { authorization: `${PUBLIC}:${hmac('another-secret', PRETTY)}` },
      signed(PRETTY, { created: NOW - 3600 }),
      signed(PRETTY, { url: `${URL_}/` }),
      signed(PRETTY, { secret: 'another-secret' }),
    ];
    const secretDerived = [
      SECRET,
      Buffer.from(SECRET, 'base64url').toString('hex'),
      hmac(SECRET, PRETTY),
      hmac(SECRET, PRETTY, 'base64'),
      ...headersOf.flatMap((headers) => {
        const input = headers['signature-input'];
        if (input === undefined) return [];
        const computed = signatureBaseFor(request(PRETTY, headers), input, 'sig1');
        return [hmac(SECRET, computed, 'base64'), hmac(SECRET, computed)];
      }),
    ];
    for (const headers of headersOf) {
      const text = JSON.stringify(await diagnoseSignature(request(PRETTY, headers), options()));
      for (const derived of secretDerived) expect(text).not.toContain(derived);
    }
  });
});

describe('diagnoseSignature within its budget', () => {
  /** The bodies an attacker sends to make a diagnosis costly: 16,383 bytes each. */
  const costly = {
    'nested 32 levels': `${'['.repeat(32)}${'0,'.repeat(8159)}0${']'.repeat(32)}`,
    'a flat array': `[${'0,'.repeat(8190)}0]`,
    'a long string of non-ASCII and escaped characters': JSON.stringify({
      a: 'Ɛ/<'.repeat(2700).slice(0, 8000),
    }),
    'an object of 990 keys': JSON.stringify(
      Object.fromEntries(Array.from({ length: 990 }, (_, i) => [`k/${i}`, 'é'])),
    ),
    'a pretty body nested 31 levels': JSON.stringify(
      JSON.parse(`${'['.repeat(31)}${'0,'.repeat(440)}0${']'.repeat(31)}`),
      null,
      1,
    ),
  };

  /** {@link nodeDiagnosisCrypto}, counting the bytes each MAC and digest reads. */
  const counting = () => {
    const read = { bytes: 0, candidates: 0 };
    const crypto: DiagnosisCrypto = {
      async macCheck(key, hash) {
        const check = await nodeDiagnosisCrypto.macCheck(key, hash);
        return (mac, data) => {
          read.bytes += data.length;
          read.candidates += 1;
          return check(mac, data);
        };
      },
      digest(algorithm, bytes) {
        read.bytes += bytes.length;
        return nodeDiagnosisCrypto.digest(algorithm, bytes);
      },
      verifyMessageSignature: nodeDiagnosisCrypto.verifyMessageSignature,
    };
    return { crypto, read };
  };

  it.each(Object.entries(costly))(
    '%s, wrongly signed: hashes no more than the budget allows',
    async (_, text) => {
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(16_383);
      const { crypto, read } = counting();
      const headers = { authorization: `${PUBLIC}:${hmac('another-secret', text)}` };
      const diagnosis = await diagnoseSignatureWith(crypto, request(text, headers), options());
      expect(diagnosis?.cause).toBe('no-known-mistake');
      // The budget (128 KiB), beside the fingerprint of the body, the MAC that found it wrong, and
      // one MAC or digest of the body per misused key guessed (at most 20).
      expect(read.bytes).toBeLessThanOrEqual(128 * 1024 + 22 * Buffer.byteLength(text));
      expect(read.candidates).toBeLessThanOrEqual(200);
    },
  );

  it.each([
    [
      'more than 1,000 values',
      `[${'0,'.repeat(2000)}0]`,
      /gave up looking for the same JSON written otherwise .*the body holds more than 1,000 JSON values/,
    ],
    [
      'nested deeper than 32 levels',
      `${'['.repeat(40)}${']'.repeat(40)}`,
      /gave up .*the body is nested deeper than 32 levels/,
    ],
    [
      'over 16 KiB',
      JSON.stringify({ a: 'x'.repeat(16 * 1024) }),
      /gave up .*the body is larger than 16 KiB/,
    ],
  ])('gives up on a body of %s as no-known-mistake, and says so', async (_, text, words) => {
    const compact = JSON.stringify(JSON.parse(text));
    const sent = `${compact}\n `;
    const diagnosis = await diagnoseSignature(
      request(sent, { authorization: `${PUBLIC}:${hmac(SECRET, compact)}` }),
      options(),
    );
    expect(diagnosis).toMatchObject({ cause: 'no-known-mistake', signature: 'authorization' });
    expect(diagnosis?.explanation).toMatch(words);
  });

  it('finds with a larger budget what the default one gave up on', async () => {
    const value = Array.from({ length: 1_200 }, (_, i) => i % 10);
    const sent = JSON.stringify(value, null, 2);
    const headers = { authorization: `${PUBLIC}:${hmac(SECRET, JSON.stringify(value))}` };
    const within = await diagnoseSignature(request(sent, headers), options());
    expect(within?.cause).toBe('no-known-mistake');
    const larger = await diagnoseSignature(
      request(sent, headers),
      options({ budget: { maxValues: 5_000, maxBytes: 1024 * 1024 } }),
    );
    expect(larger).toMatchObject({ cause: 'body-bytes-differ', signedBody: { form: 'compact' } });
  });

  it('gives up on the message signature as no-known-mistake, with the base, and says so', async () => {
    const headers = signed(PRETTY, { secret: 'another-secret' });
    const diagnosis = await diagnoseSignature(
      request(PRETTY, headers),
      options({ budget: { maxCandidates: 5 } }),
    );
    expect(diagnosis).toMatchObject({
      cause: 'no-known-mistake',
      signature: 'message-signature',
      signatureBase: expect.stringContaining('"@signature-params"'),
      explanation: expect.stringMatching(/gave up .*it tried 5 candidates/),
    });
  });

  it('without a budget spent, says that it tried every known mistake', async () => {
    const diagnosis = await diagnoseSignature(
      request(PRETTY, { authorization: `${PUBLIC}:${hmac('another-secret', PRETTY)}` }),
      options(),
    );
    expect(diagnosis?.explanation).not.toMatch(/gave up/);
    expect(diagnosis?.explanation).toMatch(/nor of the same JSON written otherwise/);
  });
});
