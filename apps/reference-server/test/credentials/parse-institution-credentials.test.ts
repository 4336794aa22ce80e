import { describe, expect, test } from 'vitest';
import { parseInstitutionCredentials } from '../../src/credentials/parse-institution-credentials.js';

const secret = 'Sup3r-Secret-Value-0123456789';

/** The message of the error `json` raises; fails when it raises none. */
function problemsOf(json: string): string {
  try {
    parseInstitutionCredentials(json);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected an error');
}

describe('parseInstitutionCredentials', () => {
  test('reads valid credentials, trimming institution names', () => {
    const list = [
      { institution: ' Bank A ', publicKey: 'pk_a', secretKey: secret },
      { institution: 'Bank B', publicKey: 'pk_b', secretKey: `${secret}-b` },
    ];
    expect(parseInstitutionCredentials(JSON.stringify(list))).toEqual([
      { institution: 'Bank A', publicKey: 'pk_a', secretKey: secret },
      { institution: 'Bank B', publicKey: 'pk_b', secretKey: `${secret}-b` },
    ]);
    expect(parseInstitutionCredentials('[]')).toEqual([]);
  });

  test('reads a pair\'s signature policy: messageSignature "required", or "optional" (the default)', () => {
    const list = [
      { institution: 'Bank A', publicKey: 'pk_a', secretKey: secret, messageSignature: 'required' },
      { institution: 'Bank B', publicKey: 'pk_b', secretKey: secret, messageSignature: 'optional' },
    ];
    expect(parseInstitutionCredentials(JSON.stringify(list))).toEqual([
      {
        institution: 'Bank A',
        publicKey: 'pk_a',
        secretKey: secret,
        signaturePolicy: 'message-signature',
      },
      { institution: 'Bank B', publicKey: 'pk_b', secretKey: secret, signaturePolicy: 'any' },
    ]);
  });

  test('names the index and field of every problem at once', () => {
    const message = problemsOf(
      JSON.stringify([
        { institution: 'Bank A', publicKey: 'pk_a', secretKey: secret },
        { institution: '', publicKey: 'pk:b', secretKey: 'short' },
        { institution: 'Bank C', secretKey: secret, extra: true },
        'not an object',
        { institution: 'Bank E', publicKey: 'pk_a', secretKey: secret },
        { institution: 'Bank F', publicKey: 'pk f', secretKey: 42 },
        { institution: 'Bank G', publicKey: 'pk_g', secretKey: secret, messageSignature: 'yes' },
      ]),
    );
    expect(message.split('\n').slice(1)).toEqual([
      'INSTITUTION_CREDENTIALS[1].institution must be a non-empty string.',
      'INSTITUTION_CREDENTIALS[1].publicKey must be visible ASCII characters without ":".',
      'INSTITUTION_CREDENTIALS[1].secretKey must be at least 16 characters.',
      'INSTITUTION_CREDENTIALS[2] has unknown fields; the fields are institution, publicKey, secretKey and (optional) messageSignature.',
      'INSTITUTION_CREDENTIALS[2].publicKey must be a non-empty string.',
      'INSTITUTION_CREDENTIALS[3] must be an object with institution, publicKey and secretKey.',
      'INSTITUTION_CREDENTIALS[4].publicKey repeats the publicKey of INSTITUTION_CREDENTIALS[0].',
      'INSTITUTION_CREDENTIALS[5].secretKey must be a non-empty string.',
      'INSTITUTION_CREDENTIALS[5].publicKey must be visible ASCII characters without ":".',
      'INSTITUTION_CREDENTIALS[6].messageSignature must be "required" or "optional".',
    ]);
  });

  test('never repeats a secret, not even from a JSON syntax error', () => {
    const inputs = [
      JSON.stringify([{ institution: 'Bank A', publicKey: 'pk:a', secretKey: secret }]),
      JSON.stringify([{ institution: '', publicKey: 'pk_a', secretKey: secret, [secret]: 1 }]),
      JSON.stringify([{ institution: 'Bank A', publicKey: 'pk_a', secretKey: 'Sup3r-short' }]),
      `[{"institution":"Bank A","publicKey":"pk_a","secretKey":"${secret}"`,
      `[{"institution":"Bank A","publicKey":"pk_a","secretKey":"${secret}"},]`,
      `{"secretKey":"${secret}"}`,
      // V8 quotes the start of an input that is not JSON at all in its own message.
      secret,
    ];
    for (const json of inputs) {
      const message = problemsOf(json);
      expect(message).not.toContain('Sup3r');
    }
    expect(problemsOf('[{"secretKey": ')).toBe(
      'INSTITUTION_CREDENTIALS is not valid JSON (expected an array of objects).',
    );
  });

  test('refuses U+0000, which PostgreSQL text cannot store', () => {
    const message = problemsOf(
      JSON.stringify([
        { institution: 'Bank\u0000A', publicKey: 'pk_a', secretKey: `${secret}\u0000` },
      ]),
    );
    expect(message.split('\n').slice(1)).toEqual([
      'INSTITUTION_CREDENTIALS[0].institution must not contain the character U+0000.',
      'INSTITUTION_CREDENTIALS[0].secretKey must not contain the character U+0000.',
    ]);
  });

  test('requires an array', () => {
    expect(problemsOf('{}')).toMatch(/must be a JSON array/);
    expect(problemsOf('null')).toMatch(/must be a JSON array/);
  });
});
