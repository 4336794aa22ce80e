/**
 * `institution-api doctor` (src/doctor/): raw request messages as a capture holds them, each
 * with a signer's mistake made as a signer in another language makes it (bare node:crypto), get
 * the cause a sandbox names, with the bytes and the signature base checked; a request whose
 * signatures hold exits 0, one whose do not 1, input that is not a request message 2 with one
 * line saying why; and nothing it prints holds the secret key or a signature computed with it.
 * (The built executable, started as a process, is in doctor-command.system.test.ts.)
 */
import { createHash, createHmac } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { signatureBaseFor } from '@institution-api/signing';
import { signMessageSync, signSync } from '@institution-api/signing/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT, main } from '../../src/main.js';

const PUBLIC = 'pk_doctor_0123';
const SECRET = 'sk_Zm9vYmFyYmF6cXV4cXV1eA';
const NOW = 1_767_229_200;
const PATH = '/api/v1/external/users';
const URL_ = `http://localhost:8080${PATH}`;
const VALUE = { email: 'ama@example.com', firstName: 'Ámà', lastName: 'Mensah' };
const COMPACT = JSON.stringify(VALUE);
const PRETTY = JSON.stringify(VALUE, null, 2);
const hmac = (key: string | Buffer, text: string, encoding: 'hex' | 'base64' = 'hex') =>
  createHmac('sha256', key).update(text).digest(encoding);

/** A raw request message: request line, header lines, an empty line, the body; LF or CRLF. */
function message(body: string, headers: Record<string, string>, eol = '\r\n'): string {
  const lines = [
    `POST ${PATH} HTTP/1.1`,
    'Host: localhost:8080',
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  return `${lines.join(eol)}${eol}${eol}${body}`;
}

/** Both signatures, right, for `body` as sent; `message` changes what the message signature covers. */
function signed(body: string, change: { created?: number; url?: string; body?: string } = {}) {
  return {
    Authorization: `${PUBLIC}:${signSync(body, SECRET)}`,
    ...Object.fromEntries(
      Object.entries(
        signMessageSync(
          { method: 'POST', url: change.url ?? URL_, body: change.body ?? body },
          { keyId: PUBLIC, secretKey: SECRET, created: change.created ?? NOW - 30 },
        ),
      ).map(([name, value]) => [name.replace(/(^|-)\w/g, (c) => c.toUpperCase()), value]),
    ),
  };
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'institution-api-doctor-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Runs the doctor on `text` (a file, or standard input for `-`); its exit code and output. */
async function doctor(text: string, args: string[] = [], env: Record<string, string> = {}) {
  const file = join(dir, `request-${Math.random().toString(36).slice(2)}.http`);
  await writeFile(file, text);
  let stdout = '';
  let stderr = '';
  const code = await main(['doctor', file, '--at', String(NOW), ...args], {
    env: { INSTITUTION_PUBLIC_KEY: PUBLIC, INSTITUTION_SECRET_KEY: SECRET, ...env },
    stdout: (chunk) => {
      stdout += chunk;
    },
    stderr: (chunk) => {
      stderr += chunk;
    },
  });
  const printed = stdout + stderr;
  // Never the secret key, nor the signature of the bytes received computed with it.
  for (const derived of [SECRET, signSync(PRETTY, SECRET), signSync(COMPACT, SECRET)]) {
    expect(printed).not.toContain(derived);
  }
  return { code, stdout, stderr };
}

describe('institution-api doctor on captured requests', () => {
  it.each<[string, string, number, RegExp[]]>([
    [
      'both signatures hold',
      message(PRETTY, signed(PRETTY)),
      EXIT.ok,
      [
        /^Authorization \(key pk_doctor_0123\): valid$/m,
        /^message signature sig1: valid$/m,
        /within ±300 s/,
        /^verdict: valid$/m,
      ],
    ],
    [
      'the same with bare LF line ends',
      message(PRETTY, signed(PRETTY), '\n'),
      EXIT.ok,
      [/^verdict: valid$/m],
    ],
    [
      'signed compact JSON, sent it pretty-printed',
      message(PRETTY, { Authorization: `${PUBLIC}:${hmac(SECRET, COMPACT)}` }),
      EXIT.http,
      [
        /^Authorization \(key pk_doctor_0123\): invalid, body-bytes-differ$/m,
        new RegExp(
          `signed instead: ${Buffer.byteLength(COMPACT)} bytes, SHA-256 ${createHash('sha256').update(COMPACT).digest('hex')} \\(compact\\)`,
        ),
        /^verdict: invalid \(body-bytes-differ\)$/m,
      ],
    ],
    [
      'keyed the HMAC with the public key',
      message(COMPACT, { Authorization: `${PUBLIC}:${hmac(PUBLIC, COMPACT)}` }),
      EXIT.http,
      [/invalid, key-misused$/m, /HMAC key used: public-key/],
    ],
    [
      'keyed the HMAC with the secret decoded from base64',
      message(COMPACT, {
        Authorization: `${PUBLIC}:${hmac(Buffer.from(SECRET, 'base64url'), COMPACT)}`,
      }),
      EXIT.http,
      [/invalid, key-misused$/m, /HMAC key used: secret-base64-decoded/],
    ],
    [
      'a message signature made an hour before the capture',
      message(PRETTY, signed(PRETTY, { created: NOW - 3600 })),
      EXIT.http,
      [
        /^Authorization \(key pk_doctor_0123\): valid$/m,
        /^message signature sig1: invalid, signature-base-differs$/m,
        /created 1767225600 \(2026-01-01T00:00:00Z\): 3600 s before this clock \(1767229200\), outside ±300 s/,
        /component: created, stale; signed: 1767225600; computed: 1767229200 ± 300/,
        /^ {4}"@path": \/api\/v1\/external\/users$/m,
      ],
    ],
    [
      'a message signature for another @path',
      message(PRETTY, signed(PRETTY, { url: `${URL_}/` })),
      EXIT.http,
      [
        /component: @path, mismatched; signed: \/api\/v1\/external\/users\/; computed: \/api\/v1\/external\/users$/m,
      ],
    ],
    [
      'a Content-Digest of the compact JSON',
      message(PRETTY, signed(PRETTY, { body: COMPACT })),
      EXIT.http,
      [
        /component: content-digest, mismatched/,
        /signed instead: \d+ bytes, SHA-256 [0-9a-f]{64} \(compact\)/,
      ],
    ],
    [
      'another secret key',
      message(COMPACT, { Authorization: `${PUBLIC}:${hmac('another-secret', COMPACT)}` }),
      EXIT.http,
      [/invalid, no-known-mistake$/m],
    ],
    [
      'no Authorization at all',
      message(COMPACT, {}),
      EXIT.http,
      [/^Authorization: missing/m, /^verdict: invalid \(no Authorization\)$/m],
    ],
  ])('%s', async (_, text, code, expected) => {
    const result = await doctor(text);
    expect(result.code, result.stdout + result.stderr).toBe(code);
    for (const pattern of expected) expect(result.stdout).toMatch(pattern);
  });

  it('prints the body exactly, and the signature base a verifier computes', async () => {
    const headers = signed(PRETTY);
    const { stdout } = await doctor(message(PRETTY, headers));
    expect(stdout).toContain(
      `body: ${Buffer.byteLength(PRETTY)} bytes, SHA-256 ${createHash('sha256').update(PRETTY).digest('hex')}`,
    );
    expect(stdout).toContain(JSON.stringify(PRETTY));
    const lowercase = new Map(
      Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]),
    );
    const base = signatureBaseFor(
      { method: 'POST', url: URL_, header: (name) => lowercase.get(name) },
      lowercase.get('signature-input') ?? '',
      'sig1',
    );
    expect(stdout).toContain(
      base
        .split('\n')
        .map((line) => `    ${line}`)
        .join('\n'),
    );
  });

  it('--at is the clock: the same capture is fresh at its time, stale an hour later', async () => {
    const text = message(PRETTY, signed(PRETTY));
    expect((await doctor(text)).code).toBe(EXIT.ok);
    expect((await doctor(text, ['--at', String(NOW + 3600)])).stdout).toMatch(/outside ±300 s/);
  });

  it('--require-message-signature: none is then a failure', async () => {
    const text = message(COMPACT, { Authorization: `${PUBLIC}:${signSync(COMPACT, SECRET)}` });
    expect((await doctor(text)).code).toBe(EXIT.ok);
    const required = await doctor(text, ['--require-message-signature']);
    expect(required.code).toBe(EXIT.http);
    expect(required.stdout).toMatch(/none, and this key pair requires one/);
  });

  it('warns when the request names another key than INSTITUTION_PUBLIC_KEY, not naming it', async () => {
    const { stdout, stderr } = await doctor(message(PRETTY, signed(PRETTY)), [], {
      INSTITUTION_PUBLIC_KEY: 'pk_someone_else',
    });
    expect(stderr).toMatch(
      /names another key than INSTITUTION_PUBLIC_KEY \(pk_someone_else\), not shown \(it could be a secret\)/,
    );
    expect(stdout).toMatch(/^Authorization \(key not INSTITUTION_PUBLIC_KEY, not shown\): valid$/m);
  });

  it('names a key only when it is INSTITUTION_PUBLIC_KEY: another value could be a secret', async () => {
    const { stdout } = await doctor(message(PRETTY, signed(PRETTY)), [], {
      INSTITUTION_PUBLIC_KEY: '',
    });
    expect(stdout).toMatch(
      /^Authorization \(key not shown: set INSTITUTION_PUBLIC_KEY to see it named\): valid$/m,
    );
  });

  it('says the secret key was sent where the public key goes, never printing it', async () => {
    const { code, stdout, stderr } = await doctor(
      message(COMPACT, { Authorization: `${SECRET}:${signSync(COMPACT, SECRET)}` }),
    );
    expect(code).toBe(EXIT.http);
    expect(stdout).toMatch(/invalid, key-misused$/m);
    expect(stdout).toMatch(/HMAC key used: secret-as-public-key/);
    expect(stdout).toMatch(
      /carries the secret key where the public key goes.*Rotate this key pair/,
    );
    expect(`${stdout}${stderr}`).not.toContain(SECRET.slice(3, 15));
  });

  it("says what it cannot know offline: a nonce seen before, a key pair's policy", async () => {
    const valid = await doctor(message(PRETTY, signed(PRETTY)));
    expect(valid.code).toBe(EXIT.ok);
    expect(valid.stdout).toMatch(
      /nonce "[^"]+": not checked\. This tool cannot know whether the service saw this nonce before/,
    );
    const headerOnly = await doctor(
      message(COMPACT, { Authorization: `${PUBLIC}:${signSync(COMPACT, SECRET)}` }),
    );
    expect(headerOnly.code).toBe(EXIT.ok);
    expect(headerOnly.stdout).toMatch(
      /cannot know whether the key pair requires one.*--require-message-signature/,
    );
  });

  it.each([
    ['an empty file', '', /is not a request message: the input is empty$/],
    [
      'a JSON body alone',
      COMPACT,
      /is not a request message: no empty line ends the header section/,
    ],
    [
      'a body without Content-Length',
      `POST ${PATH} HTTP/1.1\nHost: h\n\n${COMPACT}`,
      /add Content-Length: \d+$/,
    ],
    [
      'a body shorter than Content-Length',
      `POST ${PATH} HTTP/1.1\nHost: h\nContent-Length: 999\n\n${COMPACT}`,
      /the body ends before the Content-Length/,
    ],
    [
      'a path smuggled into the target',
      `POST http://user@host${PATH} HTTP/1.1\nHost: h\nContent-Length: 0\n\n`,
      /request target must be a path/,
    ],
  ])('exit 2 for %s, with one line saying why', async (_, text, reason) => {
    const { code, stdout, stderr } = await doctor(text);
    expect(code).toBe(EXIT.usage);
    expect(stdout).toBe('');
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(stderr.trimEnd()).toMatch(reason);
  });

  it('exit 2 without INSTITUTION_SECRET_KEY, or for a file it cannot read', async () => {
    const io = { env: {}, stdout: () => {}, stderr: () => {} };
    expect(await main(['doctor', join(dir, 'x.http')], io)).toBe(EXIT.usage);
    const missing = await main(['doctor', join(dir, 'missing.http')], {
      ...io,
      env: { INSTITUTION_SECRET_KEY: SECRET },
    });
    expect(missing).toBe(EXIT.usage);
  });

  it('reads standard input for -', async () => {
    let stdout = '';
    const code = await main(['doctor', '-', '--at', String(NOW)], {
      env: { INSTITUTION_SECRET_KEY: SECRET },
      stdout: (chunk) => {
        stdout += chunk;
      },
      stderr: () => {},
      stdin: Readable.from([Buffer.from(message(PRETTY, signed(PRETTY)))]),
    } as Parameters<typeof main>[1]);
    expect(code).toBe(EXIT.ok);
    expect(stdout).toMatch(/^verdict: valid$/m);
  });
});
