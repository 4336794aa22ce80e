/**
 * The sandbox explains a failed signature (spec: `Problem.diagnosis`; "Assumptions", "Sandbox:
 * why a signature failed"): each mistake a signer makes, made for real against a sandbox server,
 * gets a `401` whose `diagnosis` names it and is valid against the spec; the same mistake against
 * a production server gets the one uniform `401`, byte for byte; an unknown, revoked or expired key
 * gets no diagnosis anywhere; and no answer holds a secret or a signature computed with one.
 */
import { createHmac } from 'node:crypto';
import { formatAuthorization, signSync } from '@institution-api/signing/node';
import { openapiDocument } from '@institution-api/types';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { generateCredential } from '../../src/credentials/generate-credential.js';
import type { InstitutionCredential } from '../../src/storage/types.js';
import {
  type Answer,
  type Captured,
  newUser,
  type SendOptions,
  schemaErrors,
  startTestServer,
  type TestServer,
} from './harness.js';

const path = '/api/v1/external/users';
const requiring: InstitutionCredential = {
  ...generateCredential('Delta Requires Message Signatures'),
  signaturePolicy: 'message-signature',
};
let sandbox: TestServer;
let production: TestServer;

beforeAll(async () => {
  sandbox = await startTestServer({ sandboxDiagnosis: true, moreInstitutions: [requiring] });
  production = await startTestServer({ shareWith: sandbox });
});
afterAll(async () => {
  await production?.close();
  await sandbox?.close();
});

const alpha = () => sandbox.institutions[0] as InstitutionCredential;
const hmacHex = (key: string | Buffer, text: string) =>
  createHmac('sha256', key).update(text).digest('hex');

/** A request with a signer's mistake in it, prepared for `server` (its URL and key pairs). */
type Mistake = (server: TestServer) => Captured;

/** The request `send` would make for `server`, with `change` applied to it. */
const prepared =
  (options: SendOptions, change: (captured: Captured) => Partial<Captured> = () => ({})): Mistake =>
  (server) => {
    const captured = server.prepare('POST', path, options);
    return { ...captured, ...change(captured) };
  };

/** Sent as `text`, the Authorization header made by `sign` over it (a signer's own code). */
const signedBy =
  (text: string, sign: (institution: InstitutionCredential) => string): Mistake =>
  (server) => ({
    method: 'POST',
    path,
    body: text,
    headers: {
      'content-type': 'application/json',
      authorization: formatAuthorization(
        alpha(),
        sign(server.institutions[0] as InstitutionCredential),
      ),
    },
  });

const user = newUser({ firstName: 'Ɛfua' });
const compact = JSON.stringify(user);
const pretty = JSON.stringify(user, null, 2);

const mistakes: [string, Mistake, Record<string, unknown>][] = [
  [
    'signed JSON.stringify(body), sent it pretty-printed',
    signedBy(pretty, ({ secretKey }) => signSync(compact, secretKey)),
    { cause: 'body-bytes-differ', signature: 'authorization', signedBody: { form: 'compact' } },
  ],
  [
    'signed the file, sent it with a final newline (curl -d @file.json from an editor)',
    signedBy(`${compact}\n`, ({ secretKey }) => signSync(compact, secretKey)),
    {
      cause: 'body-bytes-differ',
      signedBody: { form: 'without the final newline' },
    },
  ],
  [
    'keyed the HMAC with the public key',
    signedBy(compact, ({ publicKey }) => hmacHex(publicKey, compact)),
    { cause: 'key-misused', key: 'public-key' },
  ],
  [
    'keyed the HMAC with the secret key decoded from base64',
    signedBy(compact, ({ secretKey }) => hmacHex(Buffer.from(secretKey, 'base64url'), compact)),
    { cause: 'key-misused', key: 'secret-base64-decoded' },
  ],
  [
    'signed with another secret key',
    signedBy(compact, () => signSync(compact, 'sk_not_this_key_pairs_secret')),
    { cause: 'no-known-mistake', signature: 'authorization' },
  ],
  [
    'wrote the signature in uppercase hex',
    signedBy(compact, ({ secretKey }) => signSync(compact, secretKey).toUpperCase()),
    {
      cause: 'authorization-malformed',
      explanation: expect.stringMatching(/uppercase hexadecimal: write it in lowercase/),
    },
  ],
  [
    'message signature made an hour ago (created out of the window)',
    prepared({
      body: compact,
      messageSignature: { created: Math.floor(Date.now() / 1000) - 3600 },
    }),
    {
      cause: 'signature-base-differs',
      signature: 'message-signature',
      component: { name: 'created', problem: 'stale' },
    },
  ],
  [
    'Content-Digest of the compact JSON, the pretty JSON sent',
    prepared({ body: compact, messageSignature: true }, ({ headers }) => ({
      body: pretty,
      headers: {
        ...headers,
        authorization: formatAuthorization(alpha(), signSync(pretty, alpha().secretKey)),
      },
    })),
    {
      cause: 'signature-base-differs',
      component: { name: 'content-digest', problem: 'mismatched' },
      signedBody: { form: 'compact' },
    },
  ],
  [
    'message signature for another @path (a trailing slash)',
    (server) =>
      server.prepare('POST', path, {
        body: compact,
        messageSignature: true,
        messageSignatureUrl: `${server.baseUrl}${path}/`,
      }),
    {
      cause: 'signature-base-differs',
      component: { name: '@path', problem: 'mismatched', signed: `${path}/`, computed: path },
    },
  ],
  [
    'no message signature, for a key pair that requires one',
    prepared({ body: compact, as: requiring }),
    {
      cause: 'signature-base-differs',
      component: { name: 'signature-input', problem: 'missing' },
    },
  ],
  [
    'a scheme word before the key (Authorization: HMAC <publicKey>:<signature>)',
    (server) => {
      const captured = signedBy(compact, ({ secretKey }) => signSync(compact, secretKey))(server);
      return {
        ...captured,
        headers: { ...captured.headers, authorization: `HMAC ${captured.headers.authorization}` },
      };
    },
    {
      cause: 'authorization-malformed',
      explanation: expect.stringMatching(/scheme word "HMAC".*only its form is wrong/),
    },
  ],
  [
    'the secret key in keyid: named, never repeated',
    (server) => {
      const { secretKey } = server.institutions[0] as InstitutionCredential;
      return server.prepare('POST', path, {
        body: compact,
        messageSignature: { keyId: secretKey },
      });
    },
    {
      cause: 'signature-base-differs',
      component: { name: 'keyid', problem: 'mismatched' },
      explanation: expect.stringMatching(
        /keyid holds this key pair's secret key \(not shown here\)/,
      ),
    },
  ],
];

describe('a sandbox says why, a production server does not', () => {
  let uniform: string;
  beforeAll(async () => {
    uniform = (await production.send('POST', path, { body: compact, as: null })).text;
  });

  test.each(mistakes)('%s', async (_, mistake, diagnosis) => {
    const diagnosed = await sandbox.sendCaptured(mistake(sandbox));
    expect(diagnosed.status).toBe(401);
    expect(diagnosed.body).toMatchObject({ status: 401, diagnosis });
    expect(schemaErrors('Problem', diagnosed.body)).toEqual([]);
    expectNoSecretIn(diagnosed, compact);

    const refused = await production.sendCaptured(mistake(production));
    expect(refused.status).toBe(401);
    expect(refused.text).toBe(uniform);
  });

  test('a nonce used twice: the second request is told so, in the sandbox only', async () => {
    for (const [server, diagnosed] of [
      [sandbox, true],
      [production, false],
    ] as const) {
      const captured = server.prepare('POST', path, {
        body: newUser(),
        as: requiring,
        messageSignature: true,
      });
      expect((await server.sendCaptured(captured)).status).toBe(201);
      const replayed = await server.sendCaptured(captured);
      expect(replayed.status).toBe(401);
      if (diagnosed) {
        expect(replayed.body).toMatchObject({
          diagnosis: {
            cause: 'signature-base-differs',
            component: { name: 'nonce', problem: 'reused' },
          },
        });
        expect(schemaErrors('Problem', replayed.body)).toEqual([]);
      } else {
        expect(replayed.text).toBe(uniform);
      }
    }
  });

  test('an unknown, revoked or expired key gets the plain 401 in the sandbox too', async () => {
    const revoked = generateCredential('Alpha Savings');
    const expired = generateCredential('Alpha Savings');
    await sandbox.storage.issueCredential(revoked, { actor: 'test', expiresAt: null });
    await sandbox.storage.revokeCredential(revoked.publicKey, { actor: 'test', reason: 'leaked' });
    await sandbox.storage.issueCredential(expired, {
      actor: 'test',
      expiresAt: new Date(Date.now() - 1000),
    });
    const unknown = generateCredential('Nobody');
    for (const pair of [unknown, revoked, expired]) {
      // Signed with the public key: a mistake the sandbox names for a usable key.
      const answer = await sandbox.send('POST', path, {
        body: compact,
        as: null,
        headers: { authorization: formatAuthorization(pair, hmacHex(pair.publicKey, compact)) },
      });
      expect(answer.status).toBe(401);
      expect(answer.text).toBe(uniform);
    }
  });

  test('a request whose signatures hold is answered as ever', async () => {
    const answer = await sandbox.send('POST', path, { body: newUser(), messageSignature: true });
    expect(answer.status).toBe(201);
  });
});

describe("the spec's examples of a diagnosed 401 are what the sandbox answers to their requests", () => {
  const demo = {
    institution: 'Demo',
    publicKey: 'demo-public-key',
    secretKey: 'demo-secret-key-0123456789abcdef',
  };
  // The worked example of "Signing requests".
  const body =
    '{"email":"efua.owusu@example.com","firstName":"Efua","lastName":"Owusu","mobileNumber":"233201234567","ghanaCardNumber":"GHA-555444333-2","monthlyIncome":0}';
  const examples = () => openapiDocument.components?.examples as Record<string, { value: unknown }>;

  test.each<[string, string, SendOptions]>([
    [
      'UnauthorizedDiagnosedProblem: sent an hour after it was signed',
      'signature-base-differs',
      {
        body,
        as: demo,
        messageSignature: { created: 1_767_225_600, nonce: 'bWVzc2FnZS1zaWctbm9uY2U' },
        messageSignatureUrl: `http://localhost:8080${path}`,
      },
    ],
    [
      'UnauthorizedMalformedHeaderProblem: a scheme word before the key',
      'authorization-malformed',
      {
        body,
        as: null,
        headers: { authorization: `HMAC demo-public-key:${signSync(body, demo.secretKey)}` },
      },
    ],
  ])('%s', async (name, cause, options) => {
    const example = examples()[name.slice(0, name.indexOf(':'))]?.value;
    expect(example).toMatchObject({ diagnosis: { cause } });
    const server = await startTestServer({
      sandboxDiagnosis: true,
      moreInstitutions: [demo],
      now: () => 1_767_229_200_000,
    });
    try {
      const answer = await server.send('POST', path, options);
      expect(answer.body).toEqual(example);
    } finally {
      await server.close();
    }
  });
});

/** No secret key of any institution, nor a signature computed with one, in the answer. */
function expectNoSecretIn(answer: Answer, body: string) {
  for (const { secretKey, publicKey } of sandbox.institutions) {
    expect(answer.text).not.toContain(secretKey);
    expect(answer.text).not.toContain(signSync(body, secretKey));
    expect(answer.text).not.toContain(secretKey.slice(3, 20));
    const base = (answer.body as { diagnosis?: { signatureBase?: string } }).diagnosis
      ?.signatureBase;
    if (base !== undefined) {
      const mac = createHmac('sha256', secretKey).update(base).digest('base64');
      expect(answer.text, publicKey).not.toContain(mac);
    }
  }
}
