/**
 * The diagnosis of an RFC 9421 message signature (src/message-signature-diagnosis.ts), each
 * mistake made as a signer writing the fields by hand, or a library configured wrong, makes it:
 * fields that cannot be read (named, never "not a dictionary" when they are), a Content-Digest
 * written otherwise (named, and whether it is the right digest), `created` in other units or
 * zones, a Content-Type sent otherwise than signed, the label in the last line of the base, and a
 * `keyid` that is not the public key, never repeated back.
 */
import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signatureBaseFor } from '../src/index.js';
import { signMessageSync, signSync } from '../src/node.js';
import {
  diagnose,
  hmac,
  KEYS,
  NOW,
  request,
  said,
  signedRight,
  URL_,
} from './support/diagnosis.js';

const { publicKey, secretKey } = KEYS;
const BODY = '{"email":"ama@example.com","monthlyIncome":2500}';
const digest = (encoding: 'base64' | 'hex' | 'base64url') =>
  createHash('sha256').update(BODY).digest(encoding);

/**
 * Headers with these `Signature-Input` parameters and components and `Content-Digest`, their
 * MAC made over the base as a signer computes it (`base` changes it).
 */
function handMade({
  components = '"@method" "@path" "content-digest"',
  params = `created=${NOW};nonce="n-0123456789";keyid="${publicKey}";alg="hmac-sha256"`,
  contentDigest = `sha-256=:${digest('base64')}:`,
  extra = {},
  base = (text: string) => text,
  key = secretKey,
}: {
  components?: string;
  params?: string;
  contentDigest?: string;
  extra?: Record<string, string>;
  base?: (text: string) => string;
  key?: string;
} = {}): Record<string, string> {
  const headers: Record<string, string> = {
    authorization: `${publicKey}:${signSync(BODY, secretKey)}`,
    'content-digest': contentDigest,
    'signature-input': `sig1=(${components});${params}`,
    ...extra,
  };
  let computed: string;
  try {
    computed = signatureBaseFor(request(BODY, headers), headers['signature-input'] ?? '', 'sig1');
  } catch {
    computed = '';
  }
  headers.signature = `sig1=:${hmac(key, base(computed), 'base64')}:`;
  return headers;
}

describe('diagnoseSignature: message signature fields written otherwise', () => {
  it.each<[string, Record<string, string>, string, RegExp]>([
    [
      'Signature labelled otherwise than Signature-Input',
      (() => {
        const headers = signedRight(BODY);
        return { ...headers, signature: `sig=${headers.signature?.slice('sig1='.length)}` };
      })(),
      'signature',
      /Signature has no member labelled "sig1", the label of this signature in Signature-Input \(Signature's label: "sig"\)/,
    ],
    [
      'component names not quoted',
      {
        ...handMade(),
        'signature-input': `sig1=(@method @path content-digest);created=${NOW};keyid="${publicKey}"`,
      },
      'signature-input',
      /component names in Signature-Input are not quoted/,
    ],
    [
      'the MAC without its colons',
      (() => {
        const headers = handMade();
        return { ...headers, signature: headers.signature?.replaceAll(':', '') ?? '' };
      })(),
      'signature',
      /not between colons/,
    ],
    [
      'created written as time.time() writes it',
      {
        ...handMade(),
        'signature-input': `sig1=("@method" "@path" "content-digest");created=${NOW}.123456;keyid="${publicKey}"`,
      },
      'created',
      /created is a decimal number \(as time\.time\(\) gives\)/,
    ],
    [
      'created a decimal of three digits',
      handMade({ params: `created=${NOW}.5;nonce="n";keyid="${publicKey}"` }),
      'created',
      /created is a decimal number: it is a whole number of seconds/,
    ],
    [
      'created a date in a string',
      handMade({ params: `created="2026-01-01T00:00:00Z";nonce="n";keyid="${publicKey}"` }),
      'created',
      /created is a string in quotes/,
    ],
    [
      'created in milliseconds',
      handMade({ params: `created=${NOW * 1000};nonce="n";keyid="${publicKey}"` }),
      'created',
      /It is in milliseconds: created is in seconds since the epoch/,
    ],
    [
      'created an hour ahead (a local time read as UTC)',
      handMade({ params: `created=${NOW + 3600};nonce="n";keyid="${publicKey}"` }),
      'created',
      /is 3600 s after this service's clock .*That is 1 h ahead, a whole number of half hours: a local time taken for UTC \(a time zone east of UTC\)/,
    ],
    [
      'created in nanoseconds',
      handMade({ params: `created=${NOW}000000000;nonce="n";keyid="${publicKey}"` }),
      'created',
      /in nanoseconds/,
    ],
  ])('%s', async (_, headers, component, words) => {
    const diagnosis = await diagnose(request(BODY, headers));
    expect(diagnosis).toMatchObject({
      cause: 'signature-base-differs',
      signature: 'message-signature',
      component: expect.objectContaining({ name: component }),
    });
    expect(diagnosis?.explanation).toMatch(words);
    expect(diagnosis?.explanation).not.toMatch(/not a dictionary/);
  });

  it.each<[string, string, RegExp]>([
    [
      'hex between the colons',
      `sha-256=:${digest('hex')}:`,
      /holds the digest in hex: write it in base64\. So read, it is the digest of the bytes received: only its form is wrong/,
    ],
    [
      'an algorithm without its dash',
      `sha256=:${digest('base64')}:`,
      /algorithm is named "sha256": RFC 9530 names it "sha-256", with a dash.*only its form is wrong/,
    ],
    [
      'an uppercase algorithm',
      `SHA-256=:${digest('base64')}:`,
      /algorithm is written in uppercase: dictionary keys are lowercase, sha-256/,
    ],
    ['no colons', `sha-256=${digest('base64')}`, /its value is not between colons/],
    ['base64url', `sha-256=:${digest('base64url')}:`, /in base64url: write standard base64/],
    [
      'a SHA-512 under the name sha-256',
      `sha-256=:${createHash('sha512').update(BODY).digest('base64')}:`,
      /holds the SHA-512 digest of the bytes received under the name sha-256: name it sha-512/,
    ],
    [
      'hex of other bytes',
      `sha-256=:${createHash('sha256').update('other').digest('hex')}:`,
      /Even so read, it is not the digest of the bytes received/,
    ],
  ])('Content-Digest with %s', async (_, contentDigest, words) => {
    const diagnosis = await diagnose(request(BODY, handMade({ contentDigest })));
    expect(diagnosis).toMatchObject({
      cause: 'signature-base-differs',
      component: expect.objectContaining({ name: 'content-digest', problem: 'malformed' }),
    });
    expect(diagnosis?.explanation).toMatch(words);
  });

  it('the older Digest field sent instead of Content-Digest', async () => {
    const { 'content-digest': _, ...headers } = handMade();
    const diagnosis = await diagnose(
      request(BODY, { ...headers, digest: `SHA-256=${digest('base64')}` }),
    );
    expect(diagnosis?.component).toMatchObject({ name: 'content-digest', problem: 'missing' });
    expect(diagnosis?.explanation).toMatch(
      /the older Digest field \(RFC 3230\) instead; send Content-Digest/,
    );
  });
});

describe('diagnoseSignature: a message signature of another base', () => {
  it.each<[string, Record<string, string>, RegExp, string?]>([
    [
      'content-type signed as application/json, sent as fetch sets it',
      handMade({
        components: '"@method" "@path" "content-type" "content-digest"',
        extra: { 'content-type': 'text/plain;charset=UTF-8' },
        base: (text) =>
          text.replace(
            '"content-type": text/plain;charset=UTF-8',
            '"content-type": application/json',
          ),
      }),
      /another content-type than the one of the request received \("application\/json" where this service computed "text\/plain;charset=UTF-8"\)\. The request carries another content-type than the one signed/,
      'content-type',
    ],
    [
      'the label in the last line of the base',
      handMade({
        base: (text) => text.replace('"@signature-params": (', '"@signature-params": sig1=('),
      }),
      /has the label before the parameters in its last line/,
    ],
    [
      'the lines of the base in another order',
      handMade({
        base: (text) => {
          const lines = text.split('\n');
          return [lines[1], lines[0], ...lines.slice(2)].join('\n');
        },
      }),
      /has its lines in another order than Signature-Input lists the components/,
    ],
    [
      'no space after the colons of the base',
      handMade({ base: (text) => text.replaceAll('": ', '":') }),
      /has no space after the colon of each line/,
    ],
    [
      'the MAC in hex between the colons',
      (() => {
        const headers = handMade();
        const base = signatureBaseFor(
          request(BODY, headers),
          headers['signature-input'] ?? '',
          'sig1',
        );
        return { ...headers, signature: `sig1=:${hmac(secretKey, base)}:` };
      })(),
      /written in hex between the colons: a byte sequence is base64 \(sig1=:<base64>:\)\. So read, it is the right MAC/,
      'signature',
    ],
  ])('%s', async (_, headers, words, component) => {
    const diagnosis = await diagnose(request(BODY, headers));
    expect(diagnosis).toMatchObject({
      cause: 'signature-base-differs',
      signature: 'message-signature',
    });
    expect(diagnosis?.explanation).toMatch(words);
    if (component) expect(diagnosis?.component?.name).toBe(component);
  });

  it('keyed with the secret and a final newline', async () => {
    const diagnosis = await diagnose(request(BODY, handMade({ key: `${secretKey}\n` })));
    expect(diagnosis).toMatchObject({ cause: 'key-misused', key: 'secret-with-whitespace' });
  });
});

describe('diagnoseSignature: a keyid that is not the public key is never repeated back', () => {
  it.each<[string, string, RegExp]>([
    [
      'the secret key',
      secretKey,
      /keyid holds this key pair's secret key \(not shown here\): the secret key is never sent.*rotate this key pair/,
    ],
    [
      'a name of the integrator',
      'acme-microfinance',
      /its keyid is another value, not shown \(it is not a known public key, and could be a secret\)/,
    ],
  ])('keyid: %s', async (_, keyId, words) => {
    const headers = {
      authorization: `${publicKey}:${signSync(BODY, secretKey)}`,
      ...signMessageSync(
        { method: 'POST', url: URL_, body: BODY },
        { keyId, secretKey, created: NOW },
      ),
    };
    const diagnosis = await diagnose(request(BODY, headers));
    expect(diagnosis?.component).toEqual({
      name: 'keyid',
      problem: 'mismatched',
      computed: publicKey,
    });
    expect(diagnosis?.explanation).toMatch(words);
    expect(said(diagnosis)).not.toContain(keyId.slice(3, 15));
  });

  it('a signature made for the key pair says nothing of the secret it holds', async () => {
    const keyedWrong = createHmac('sha256', 'x').digest('base64');
    const diagnosis = await diagnose(
      request(BODY, { ...signedRight(BODY), signature: `sig1=:${keyedWrong}:` }),
    );
    expect(said(diagnosis)).not.toContain(secretKey.slice(3, 15));
  });
});
