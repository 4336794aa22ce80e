import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { normalizeUser } from '@institution-api/client';
import { formatAuthorization, sign, verify } from '@institution-api/signing';
import { verdictOf } from '@institution-api/test-support/message-signature-verdict';
import {
  sendJson,
  startServer,
  type TestServer,
} from '@institution-api/test-support/recording-server';
import {
  type RunningServer,
  startReferenceServer,
} from '@institution-api/test-support/reference-server';
import { testKeys } from '@institution-api/test-support/test-keys';
import {
  specExample,
  userBody,
  userCreatedExample,
  userUpdatedExample,
} from '@institution-api/test-support/user-bodies';
import type { Problem } from '@institution-api/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT, main, USAGE } from '../src/main.js';

const USER_ID = '3f0c9a52-6d1e-4b7a-9c2e-8a5d4f1b7e21';
const ENV = {
  INSTITUTION_PUBLIC_KEY: testKeys.publicKey,
  INSTITUTION_SECRET_KEY: testKeys.secretKey,
};

let dir: string;
let userFile: string;
/** Pretty-printed on purpose: `sign` must cover these bytes, not a re-serialization. */
const fileText = `${JSON.stringify(userBody('MomoAccountUser'), null, 2)}\n`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'institution-api-cli-'));
  userFile = join(dir, 'user.json');
  await writeFile(userFile, fileText);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function cli(args: string[], env: Record<string, string | undefined> = ENV) {
  let stdout = '';
  let stderr = '';
  const code = await main(args, {
    env,
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
  });
  // Whatever happened, the secret never reaches the terminal.
  expect(stdout + stderr).not.toContain(testKeys.secretKey);
  return { code, stdout, stderr };
}

/** The lines `sign` printed, by header name. */
function headerLines(stdout: string): Record<string, string> {
  const lines = stdout.trimEnd().split('\n');
  return Object.fromEntries(
    lines.map((line) => {
      const colon = line.indexOf(': ');
      return [line.slice(0, colon), line.slice(colon + 2)];
    }),
  );
}

/** The verdict on `sign`'s message signature for a request of `method` to `url` with the file. */
function verdictOnFile(headers: Record<string, string>, method: string, url: string) {
  return verdictOf({
    method,
    url,
    headers: new Headers(headers),
    bytes: new TextEncoder().encode(fileText),
  });
}

describe('institution-api sign', () => {
  it("prints Authorization and the message signature for the file's exact bytes, for a create", async () => {
    const { code, stdout } = await cli(['sign', userFile]);
    expect(code).toBe(EXIT.ok);
    expect(stdout).toMatch(
      /^Authorization: .+\nContent-Digest: sha-256=:.+:\nSignature-Input: sig1=\("@method" "@path" "content-digest"\);created=\d+;nonce="[0-9a-f]{32}";keyid="pk_test_institution";alg="hmac-sha256"\nSignature: sig1=:.+:\n$/,
    );
    const headers = headerLines(stdout);
    const expected = formatAuthorization(testKeys, await sign(fileText, testKeys.secretKey));
    expect(headers.Authorization).toBe(expected);
    // Not the signature of the re-serialized body.
    const compact = JSON.stringify(userBody('MomoAccountUser'));
    const mac = headers.Authorization?.split(':')[1] ?? '';
    expect(await verify(compact, mac, testKeys.secretKey)).toBe(false);
    // POST to the create URL of INSTITUTION_API_URL's default, and nothing else
    expect(
      verdictOnFile(headers, 'POST', 'http://localhost:8080/api/v1/external/users'),
    ).toMatchObject({ status: 'valid' });
    expect(
      verdictOnFile(headers, 'PUT', 'http://localhost:8080/api/v1/external/users'),
    ).toMatchObject({ status: 'invalid' });
  });

  it('signs for INSTITUTION_API_URL, or for --method and --url', async () => {
    const base = 'https://institution.example.com/prefix/';
    const created = await cli(['sign', userFile], { ...ENV, INSTITUTION_API_URL: base });
    expect(
      verdictOnFile(
        headerLines(created.stdout),
        'POST',
        'https://institution.example.com/prefix/api/v1/external/users',
      ),
    ).toMatchObject({ status: 'valid' });

    const url = `https://institution.example.com/api/v1/external/users/${USER_ID}`;
    const updated = await cli(['sign', '--method', 'PUT', '--url', url, userFile]);
    expect(updated.code).toBe(EXIT.ok);
    const headers = headerLines(updated.stdout);
    expect(verdictOnFile(headers, 'PUT', url)).toMatchObject({ status: 'valid' });
    const other = `https://institution.example.com/api/v1/external/users/${USER_ID.replace('3', '4')}`;
    expect(verdictOnFile(headers, 'PUT', other)).toMatchObject({ status: 'invalid' });
  });

  it('each run has a nonce of its own', async () => {
    const first = headerLines((await cli(['sign', userFile])).stdout);
    const second = headerLines((await cli(['sign', userFile])).stdout);
    expect(second.Authorization).toBe(first.Authorization);
    expect(second['Signature-Input']).not.toBe(first['Signature-Input']);
  });

  it('--no-message-signatures prints Authorization alone', async () => {
    const { code, stdout } = await cli(['sign', '--no-message-signatures', userFile]);
    expect(code).toBe(EXIT.ok);
    const expected = formatAuthorization(testKeys, await sign(fileText, testKeys.secretKey));
    expect(stdout).toBe(`Authorization: ${expected}\n`);
  });

  it('honours --algorithm and --encoding', async () => {
    const options = { algorithm: 'sha512', encoding: 'base64' } as const;
    const { code, stdout } = await cli([
      'sign',
      '--algorithm',
      'sha512',
      '--encoding',
      'base64',
      userFile,
    ]);
    expect(code).toBe(EXIT.ok);
    const mac = await sign(fileText, testKeys.secretKey, options);
    expect(headerLines(stdout).Authorization).toBe(`${testKeys.publicKey}:${mac}`);
  });
});

describe('institution-api create and update', () => {
  let server: TestServer;
  let answer: (n: number) => [number, unknown];

  beforeAll(async () => {
    server = await startServer((req, res, n) => {
      const [status, body] = answer(n);
      expect(req.headers.authorization?.startsWith(`${testKeys.publicKey}:`)).toBe(true);
      sendJson(res, status, body);
    });
  });
  afterAll(() => server.close());

  const env = () => ({ ...ENV, INSTITUTION_API_URL: server.url });

  it('create prints the normalized user and exits 0', async () => {
    answer = () => [201, userCreatedExample()];
    const { code, stdout, stderr } = await cli(['create', userFile], env());
    expect(code).toBe(EXIT.ok);
    expect(JSON.parse(stdout)).toEqual(normalizeUser(userCreatedExample()));
    expect(stderr).toMatch(/Created a new user/);
    const request = server.requests.at(-1);
    expect(request?.method).toBe('POST');
    expect(request?.body).toBe(JSON.stringify(userBody('MomoAccountUser')));
    const signature = request?.headers.authorization?.split(':')[1] ?? '';
    expect(await verify(request?.body ?? '', signature, testKeys.secretKey)).toBe(true);
    if (request === undefined) return;
    const url = `${server.url}${request.url}`;
    expect(verdictOf({ ...request, url })).toMatchObject({ status: 'valid' });
  });

  it('create --no-message-signatures sends Authorization alone', async () => {
    answer = () => [201, userCreatedExample()];
    const { code } = await cli(['create', '--no-message-signatures', userFile], env());
    expect(code).toBe(EXIT.ok);
    const request = server.requests.at(-1);
    expect(request?.headers.authorization).toMatch(/^pk_test_institution:[0-9a-f]{64}$/);
    expect(request?.headers['signature-input']).toBeUndefined();
    expect(request?.headers.signature).toBeUndefined();
  });

  it('create says why monthlyIncome prints as null, and that the income sent was stored', async () => {
    answer = () => [201, userCreatedExample()];
    const { stdout, stderr } = await cli(['create', userFile], env());
    expect(JSON.parse(stdout).monthlyIncome).toBeNull();
    expect(stderr).toContain(
      'Note: "monthlyIncome" is null below because the create answer does not carry it ' +
        '(the update answer does); the service stored the 2500.5 you sent.',
    );
  });

  it('create says what a 200 means: the user existed, belongs to you, with its stored details', async () => {
    answer = () => [200, userCreatedExample()];
    const { code, stderr } = await cli(['create', userFile], env());
    expect(code).toBe(EXIT.ok);
    expect(stderr).toContain(
      'A user with this Ghana Card number already existed; it now belongs to your institution ' +
        '(or already did). Shown below are its stored details, which this create did not ' +
        'change (update changes them).',
    );
    expect(stderr).toContain('the stored income may differ from the one in your file');
    expect(stderr).not.toMatch(/added to this institution/);
  });

  it('update PUTs to the id and prints the normalized user', async () => {
    answer = () => [200, userUpdatedExample()];
    const { code, stdout } = await cli(['update', USER_ID, userFile], env());
    expect(code).toBe(EXIT.ok);
    expect(JSON.parse(stdout)).toEqual(normalizeUser(userUpdatedExample()));
    const request = server.requests.at(-1);
    expect(request?.url).toBe(`/api/v1/external/users/${USER_ID}`);
    expect(request?.method).toBe('PUT');
    if (request === undefined) return;
    const url = `${server.url}${request.url}`;
    expect(verdictOf({ ...request, url })).toMatchObject({ status: 'valid' });
  });

  it('prints the problem and exits 1 for an HTTP error', async () => {
    answer = () => [400, specExample<Problem>('ValidationProblem')];
    const { code, stdout } = await cli(['create', userFile], env());
    expect(code).toBe(EXIT.http);
    expect(JSON.parse(stdout)).toEqual(specExample<Problem>('ValidationProblem'));
  });

  it('exits 2 when the service cannot be reached, naming the URL, the cause and npm start', async () => {
    const closed = await startServer(() => {});
    const url = closed.url;
    await closed.close();
    const { code, stdout, stderr } = await cli(['update', USER_ID, userFile], {
      ...ENV,
      INSTITUTION_API_URL: url,
    });
    expect(code).toBe(EXIT.usage);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      `institution-api: cannot reach ${url}/api/v1/external/users/${USER_ID}: ` +
        'connection refused (ECONNREFUSED).\n' +
        "Is the reference server running? Start it with `npm start` in the toolkit's " +
        "repository, or set INSTITUTION_API_URL to the service's address.\n",
    );
  });

  it('refuses an INSTITUTION_API_URL with a user and password, without repeating them', async () => {
    const { code, stderr } = await cli(['create', userFile], {
      ...ENV,
      INSTITUTION_API_URL: 'http://proxy-user:hunter2@127.0.0.1:9',
    });
    expect(code).toBe(EXIT.usage);
    expect(stderr).toBe(
      'institution-api: INSTITUTION_API_URL must not contain a user name or password\n' +
        'Run institution-api --help for usage.\n',
    );
  });

  it('does not suggest npm start for a service that is not local', async () => {
    const { stderr } = await cli(['create', userFile], {
      ...ENV,
      INSTITUTION_API_URL: 'http://institution.invalid',
    });
    expect(stderr).toMatch(
      /^institution-api: cannot reach http:\/\/institution\.invalid\/api\/v1\/external\/users: host (name lookup failed|not found) \((EAI_AGAIN|ENOTFOUND)\)\.\nCheck INSTITUTION_API_URL and your network\.\n$/,
    );
  }, 30_000);
});

describe('sign, then curl, to the reference server with a key that requires message signatures', () => {
  let server: RunningServer;
  beforeAll(async () => {
    const credentials = [
      { institution: 'CLI sign tests', ...testKeys, messageSignature: 'required' as const },
    ];
    server = await startReferenceServer({ credentials });
  }, 40_000);
  afterAll(() => server?.stop());

  /** curl sending the file with the headers of `headersFile`, as the usage shows; the status. */
  async function curl(headersFile: string, url: string, method = 'POST') {
    const { stdout } = await promisify(execFile)(
      'curl',
      [
        '-sS',
        '-o',
        '/dev/null',
        '-w',
        '%{http_code}',
        '-X',
        method,
        '--data-binary',
        `@${userFile}`,
        '-H',
        `@${headersFile}`,
        '-H',
        'Content-Type: application/json',
        url,
      ],
      { env: { PATH: process.env.PATH ?? '' } },
    );
    return stdout;
  }

  it('creates (201); the same headers again are a replay (401); update with --method PUT --url (200)', async () => {
    const env = { ...ENV, INSTITUTION_API_URL: server.url };
    const headersFile = join(dir, 'headers.txt');
    const signed = await cli(['sign', userFile], env);
    await writeFile(headersFile, signed.stdout);
    const createUrl = `${server.url}/api/v1/external/users`;
    expect(await curl(headersFile, createUrl)).toBe('201');
    expect(await curl(headersFile, createUrl)).toBe('401');
    // Authorization alone is refused by this key
    const bare = await cli(['sign', '--no-message-signatures', userFile], env);
    await writeFile(headersFile, bare.stdout);
    expect(await curl(headersFile, createUrl)).toBe('401');

    const id = JSON.parse((await cli(['create', userFile], env)).stdout).id as string;
    const updateUrl = `${createUrl}/${id}`;
    const update = await cli(['sign', '--method', 'PUT', '--url', updateUrl, userFile], env);
    await writeFile(headersFile, update.stdout);
    expect(await curl(headersFile, updateUrl, 'PUT')).toBe('200');
  }, 30_000);
});

describe('usage errors exit 2 with a message', () => {
  it.each([
    [[], 'no command given'],
    [['frobnicate', 'x.json'], "unknown command 'frobnicate'"],
  ])('%j prints what is wrong, then the usage', async (args, what) => {
    const { code, stderr, stdout } = await cli(args);
    expect(code).toBe(EXIT.usage);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      `institution-api: ${what}: expected sign, create, update, import, sign-proxy, mcp or doctor\n\n${USAGE}`,
    );
  });

  it.each([
    [['sign'], /sign expects <file.json>/],
    [['update', 'x.json'], /update expects <id> <file.json>/],
    [['sign', '--algorithm', 'md5', 'x.json'], /--algorithm must be one of sha256, sha512/],
    [['sign', '--encoding', 'b32', 'x.json'], /--encoding must be one of hex, base64/],
    [['sign', '--verbose', 'x.json'], /Unknown option '--verbose'/],
    [['sign', '/nonexistent/user.json'], /cannot read \/nonexistent\/user.json \(ENOENT\)/],
    [
      ['sign', '--method', 'PO ST', 'x.json'],
      /--method must be an HTTP method such as POST or PUT/,
    ],
    [['sign', '--url', 'ftp://x.test/', 'x.json'], /--url must be an http or https URL/],
    [['sign', '--url', '/api/v1/external/users', 'x.json'], /--url must be an http or https URL/],
    [['create', '--url', 'http://x.test/', 'x.json'], /--method and --url are options of sign/],
  ])('%j', async (args, message) => {
    const { code, stderr, stdout } = await cli(args);
    expect(code).toBe(EXIT.usage);
    expect(stderr).toMatch(message);
    expect(stdout).toBe('');
  });

  it('names a missing credential variable', async () => {
    const { code, stderr } = await cli(['sign', userFile], {
      INSTITUTION_PUBLIC_KEY: testKeys.publicKey,
    });
    expect(code).toBe(EXIT.usage);
    expect(stderr).toMatch(/INSTITUTION_SECRET_KEY is not set/);
  });

  it('refuses a file that is not JSON for create, with the line and column', async () => {
    const bad = join(dir, 'bad.json');
    await writeFile(bad, '{\n  "email": "ama@example.com",\n  "firstName": Ama\n}\n');
    const { code, stderr } = await cli(['create', bad]);
    expect(code).toBe(EXIT.usage);
    expect(stderr).toBe(
      `institution-api: ${bad} is not valid JSON: line 3, column 16: Unexpected token 'A'\n`,
    );
  });

  it('refuses a file that is not UTF-8 for update, with the line, column and byte', async () => {
    const latin1 = join(dir, 'latin1.json');
    // "Ménsah" saved as Latin-1: é is the single byte 0xE9.
    await writeFile(
      latin1,
      Buffer.concat([
        Buffer.from('{\n  "lastName": "M'),
        Buffer.from([0xe9]),
        Buffer.from('nsah"\n}'),
      ]),
    );
    const { code, stderr } = await cli(['update', USER_ID, latin1]);
    expect(code).toBe(EXIT.usage);
    expect(stderr).toBe(
      `institution-api: ${latin1} is not valid UTF-8: byte 0xE9 at line 2, column 17 ` +
        '(byte offset 18) is not UTF-8; save the file as UTF-8\n',
    );
  });

  it('reports a bad public key without echoing the secret', async () => {
    const { code, stderr } = await cli(['sign', userFile], {
      ...ENV,
      INSTITUTION_PUBLIC_KEY: 'has:colon',
    });
    expect(code).toBe(EXIT.usage);
    expect(stderr).toMatch(/publicKey must not contain ':'/);
  });
});

describe('--help', () => {
  it('prints usage and exits 0 without needing credentials', async () => {
    const { code, stdout } = await cli(['--help'], {});
    expect(code).toBe(EXIT.ok);
    expect(stdout).toBe(USAGE);
    expect(stdout).toMatch(/INSTITUTION_SECRET_KEY/);
  });
});

describe('the built executable', () => {
  it('runs the same command (build first: the test task depends on build)', async () => {
    const bin = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
    const { stdout } = await promisify(execFile)(process.execPath, [bin, 'sign', userFile], {
      env: { ...process.env, ...ENV },
    });
    const expected = formatAuthorization(testKeys, await sign(fileText, testKeys.secretKey));
    expect(headerLines(stdout).Authorization).toBe(expected);
  });
});
