/**
 * The diagnosis of an `Authorization` signature (src/authorization-diagnosis.ts), each mistake
 * made with bare node:crypto as a signer in another language makes it: the header written
 * otherwise (authorization-malformed, saying whether the signature itself is right), the MAC made
 * with something else than the secret key's UTF-8 bytes (key-misused), the MAC of other bytes
 * (body-bytes-differ), and what is true of a body nothing was found for. No explanation repeats
 * the secret key or a value that could be one.
 */
import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { SignatureDiagnosis } from '../src/index.js';
import { diagnose, hmac, KEYS, request, said } from './support/diagnosis.js';

const { publicKey, secretKey } = KEYS;
const BODY =
  '{"email":"ama@example.com","lastName":"Sénou","image":"https://img.example/a.png","monthlyIncome":2500}';
const PRETTY = JSON.stringify(JSON.parse(BODY), null, 2);
const sha = (algorithm: string, ...parts: string[]) =>
  createHash(algorithm).update(parts.join('')).digest('hex');

/** A body whose right signature starts with 0, for a signer that drops leading zeros. */
const leadingZero = (() => {
  for (let i = 0; ; i++) {
    const body = `${BODY}${' '.repeat(i)}`;
    if (hmac(secretKey, body).startsWith('0')) return body;
  }
})();

describe('diagnoseSignature: the Authorization signature made with the secret key misused', () => {
  it.each<[string, string, string, RegExp]>([
    ['keyed with the public key', hmac(publicKey, BODY), 'public-key', /keyed with the public key/],
    [
      'the secret with a final newline',
      hmac(`${secretKey}\n`, BODY),
      'secret-with-whitespace',
      /followed by a newline/,
    ],
    [
      'the secret with a carriage return',
      hmac(`${secretKey}\r`, BODY),
      'secret-with-whitespace',
      /carriage return \(\\r\)/,
    ],
    [
      'the secret with CRLF',
      hmac(`${secretKey}\r\n`, BODY),
      'secret-with-whitespace',
      /carriage return and a newline/,
    ],
    [
      'the secret with a space',
      hmac(`${secretKey} `, BODY),
      'secret-with-whitespace',
      /followed by a space/,
    ],
    [
      'the secret in double quotes',
      hmac(`"${secretKey}"`, BODY),
      'secret-in-quotes',
      /double quotes.*remove the quotes/,
    ],
    [
      'the secret in single quotes',
      hmac(`'${secretKey}'`, BODY),
      'secret-in-quotes',
      /single quotes/,
    ],
    [
      'the sk_ prefix cut and the rest decoded from base64',
      hmac(Buffer.from(secretKey.slice(3), 'base64url'), BODY),
      'secret-without-prefix',
      /without its "sk_" prefix, the rest decoded from base64/,
    ],
    [
      'the sk_ prefix cut',
      hmac(secretKey.slice(3), BODY),
      'secret-without-prefix',
      /without its "sk_" prefix\./,
    ],
    [
      'an empty key (a hex decoding that failed)',
      hmac('', BODY),
      'empty',
      /an empty key: a decoding of the secret key that failed/,
    ],
    [
      'the whole secret decoded from base64',
      hmac(Buffer.from(secretKey, 'base64'), BODY),
      'secret-base64-decoded',
      /decoded from base64/,
    ],
    [
      "key and message swapped (PHP's hash_hmac)",
      createHmac('sha256', BODY).update(secretKey).digest('hex'),
      'message-as-key',
      /swapped/,
    ],
    [
      'sha256(secret + body)',
      sha('sha256', secretKey, BODY),
      'not-hmac',
      /not an HMAC: .*the secret key followed by the body/,
    ],
    [
      'sha256(body + secret)',
      sha('sha256', BODY, secretKey),
      'not-hmac',
      /the body followed by the secret key/,
    ],
  ])('%s', async (_, signature, key, words) => {
    const diagnosis = await diagnose(request(BODY, { authorization: `${publicKey}:${signature}` }));
    expect(diagnosis).toMatchObject({ cause: 'key-misused', signature: 'authorization', key });
    expect(diagnosis?.explanation).toMatch(words);
    expect(said(diagnosis)).not.toContain(secretKey.slice(3, 15));
  });
});

describe('diagnoseSignature: an Authorization header written otherwise', () => {
  const right = hmac(secretKey, BODY);
  it.each<[string, string, RegExp, string?]>([
    [
      'a scheme word before the key',
      `HMAC ${publicKey}:${right}`,
      /scheme word "HMAC" before the public key.*only its form is wrong/,
    ],
    ['Bearer', `Bearer ${publicKey}:${right}`, /scheme word "Bearer"/],
    [
      'Basic credentials',
      `Basic ${Buffer.from(`${publicKey}:${right}`).toString('base64')}`,
      /Basic credentials, the base64 of <publicKey>:<signature>.*only its form is wrong/,
    ],
    ['a space after the colon', `${publicKey}: ${right}`, /a space around the colon/],
    ['a webhook-style prefix', `${publicKey}:sha256=${right}`, /with "sha256=" before it/],
    [
      'the signature in base64',
      `${publicKey}:${hmac(secretKey, BODY, 'base64')}`,
      /in base64: this service reads it in hex, not base64/,
    ],
    [
      'uppercase hex',
      `${publicKey}:${right.toUpperCase()}`,
      /uppercase hexadecimal: write it in lowercase/,
    ],
    [
      'a leading zero dropped (BigInteger.toString(16))',
      `${publicKey}:${hmac(secretKey, leadingZero).slice(1)}`,
      /63 hexadecimal characters: its leading zero was dropped.*only its form is wrong/,
      leadingZero,
    ],
    [
      'an HMAC-SHA512',
      `${publicKey}:${createHmac('sha512', secretKey).update(BODY).digest('hex')}`,
      /64 bytes long, as an HMAC-SHA512 is.*It is the HMAC-SHA512 of the bytes received, with the secret key: use SHA-256/,
    ],
    [
      'a space instead of the colon',
      `${publicKey} ${right}`,
      /a space between the public key and the signature: write a colon.*only its form is wrong/,
    ],
    [
      'an MD5',
      `${publicKey}:${sha('md5', secretKey, BODY)}`,
      /16 bytes long, as an HMAC-MD5 is.*Compute HMAC-SHA256/,
    ],
    [
      'the older HTTP Signatures draft',
      `Signature keyId="${publicKey}",algorithm="hmac-sha256",signature="${hmac(secretKey, BODY, 'base64')}"`,
      /names the key as a parameter \(keyId=/,
    ],
    [
      'a scheme word and the signature of other bytes',
      `HMAC ${publicKey}:${hmac(secretKey, PRETTY)}`,
      /scheme word "HMAC".*Written so, the signature still does not verify: The Authorization signature is the HMAC of the same JSON written otherwise \(pretty-printed with 2 spaces/,
    ],
  ])('%s', async (_, authorization, words, body = BODY) => {
    const diagnosis = await diagnose(request(body, { authorization }));
    expect(diagnosis).toMatchObject({
      cause: 'authorization-malformed',
      signature: 'authorization',
    });
    expect(diagnosis?.explanation).toMatch(words);
  });

  it('never repeats a word before the key that is not a scheme: it could be a secret', async () => {
    const diagnosis = await diagnose(
      request(BODY, { authorization: `${secretKey} ${publicKey}:${right}` }),
    );
    expect(diagnosis?.explanation).toMatch(/the scheme word a word \(not shown\)/);
    expect(said(diagnosis)).not.toContain(secretKey.slice(3, 15));
  });
});

describe('diagnoseSignature: the Authorization signature of other bytes', () => {
  it.each<[string, string | Uint8Array, string | Uint8Array, RegExp, RegExp?]>([
    [
      'sent in ISO-8859-1 (a platform charset, a gateway), signed in UTF-8',
      new Uint8Array(Buffer.from(BODY, 'latin1')),
      BODY,
      /that text in ISO-8859-1 \(Latin-1\): é arrived as the single byte 0xE9.*a proxy or gateway on the way re-encoded the body/,
      /secret key/,
    ],
    [
      'a float signed 2500.0',
      BODY,
      BODY.replace('2500', '2500.0'),
      /2500\.0 where the bytes received have 2500/,
    ],
    ['sent serialized twice', JSON.stringify(BODY), BODY, /serialized twice/],
    [
      'signed pretty-printed',
      BODY,
      PRETTY,
      /pretty-printed with 2 spaces.*if your code does, something on the way/,
    ],
  ])('%s', async (_, sent, signedBytes, words, never) => {
    const diagnosis = await diagnose(
      request(sent, { authorization: `${publicKey}:${hmac(secretKey, signedBytes)}` }),
    );
    expect(diagnosis).toMatchObject({ cause: 'body-bytes-differ', signature: 'authorization' });
    expect(diagnosis?.explanation).toMatch(words);
    if (never) expect(diagnosis?.explanation).not.toMatch(never);
  });

  it.each<[string, string, Record<string, string>, RegExp]>([
    ['another secret key', BODY, {}, /check that the secret key is this key pair's/],
    [
      'a form-encoded body',
      'email=ama%40example.com&monthlyIncome=2500',
      {},
      /form-encoded \(name=value&…\), not JSON/,
    ],
    ['no body', '', {}, /arrived without a body/],
    ['a body cut short', BODY.slice(0, 40), {}, /ends before its JSON does/],
  ])('nothing found, %s: says what is true of the body', async (_, sent, headers, words) => {
    const diagnosis: SignatureDiagnosis | undefined = await diagnose(
      request(sent, { authorization: `${publicKey}:${hmac('another-secret', BODY)}`, ...headers }),
    );
    expect(diagnosis).toMatchObject({ cause: 'no-known-mistake', signature: 'authorization' });
    expect(diagnosis?.explanation).toMatch(words);
  });
});
