/**
 * The console's snippets, run: the curl snippet with bash and a stand-in `curl` that records what
 * it would send, so the bytes and both signatures (Authorization, and the message signature the
 * node verifier accepts) can be checked, for bodies that a naive quoting would break. (The browser test runs them against the real server.)
 */
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  formatAuthorization,
  signSync,
  verifyMessageSignatureSync,
} from '@institution-api/signing/node';
import { run } from '@institution-api/test-support/run-program';
import { createSampleProject } from '@institution-api/test-support/sample-project';
import { pathWithOnly, which } from '@institution-api/test-support/shell-tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  clientText,
  curlSnippet,
  parameterVariable,
  shellQuote,
  typeScriptSnippet,
} from '../../console/src/snippets.js';
import type { ConsoleOperation } from '../../console/src/spec-types.js';

const create: ConsoleOperation = {
  operationId: 'createUser',
  method: 'POST',
  path: '/api/v1/external/users',
  summary: 'Create a user',
  pathParameters: [],
  examples: [],
  responses: {},
};
const update: ConsoleOperation = {
  ...create,
  operationId: 'updateUser',
  method: 'PUT',
  path: '/api/v1/external/users/{id}',
  pathParameters: ['id'],
};
const keys = { publicKey: 'pk_snippet', secretKey: "sk_with_'quote_and_$dollar" };

describe('the curl snippet, run by bash', () => {
  let project: Awaited<ReturnType<typeof createSampleProject>>;
  let tools: string;

  beforeAll(async () => {
    project = await createSampleProject();
    tools = await pathWithOnly(join(project.dir, 'bin'), ['openssl', 'awk', 'cat', 'date']);
    // A stand-in curl: writes its arguments and the file it would send, one per line.
    const curl = join(tools, 'curl');
    await writeFile(
      curl,
      `#!${which('bash')}\nprintf '%s\\n' "$@" > curl-args.txt\ncat body.json > sent.bin\n`,
    );
    await chmod(curl, 0o755);
  });
  afterAll(() => project?.remove());

  it.each([
    ['the compact JSON the examples use', '{"firstName":"Ama","monthlyIncome":0}'],
    ['quotes, dollars, backslashes and backticks', `{"a":"it's $HOME \\\\ \`id\` '\\"'"}`],
    ['newlines, a final one included', '{\n  "a": 1\n}\n'],
    ['non-ASCII text and emoji', '{"name":"Ɛfua Ọ̀ṣun 🇬🇭","x":"\\u2028"}'],
    ['percent signs and a leading dash', '-%s %d %%'],
  ])('sends and signs exactly the body with %s', async (_what, body) => {
    const snippet = curlSnippet({ operation: update, body, baseUrl: 'http://localhost:8080' });
    const result = await run(which('bash'), ['-c', snippet], {
      cwd: project.dir,
      env: {
        PATH: tools,
        HOME: project.dir,
        INSTITUTION_API_URL: 'http://api.example',
        INSTITUTION_PUBLIC_KEY: keys.publicKey,
        INSTITUTION_SECRET_KEY: keys.secretKey,
        USER_ID: '0190c9f2-5d4e-7a1b-8c3d-4e5f6a7b8c9d',
      },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(await readFile(join(project.dir, 'sent.bin'))).toEqual(Buffer.from(body, 'utf8'));
    const args = (await readFile(join(project.dir, 'curl-args.txt'), 'utf8')).split('\n');
    expect(args).toContain(
      `Authorization: ${formatAuthorization(keys.publicKey, signSync(body, keys.secretKey))}`,
    );
    expect(args).toContain('PUT');
    const url = 'http://api.example/api/v1/external/users/0190c9f2-5d4e-7a1b-8c3d-4e5f6a7b8c9d';
    expect(args).toContain(url);
    // and the message signature, for that method, URL and these bytes
    const fields = new Map(
      args
        .filter((arg) => /^[A-Za-z-]+: /.test(arg))
        .map((arg) => [
          arg.slice(0, arg.indexOf(':')).toLowerCase(),
          arg.slice(arg.indexOf(':') + 2),
        ]),
    );
    const verdict = verifyMessageSignatureSync(
      { method: 'PUT', url, header: (name) => fields.get(name), body: Buffer.from(body, 'utf8') },
      { keyId: keys.publicKey, secretKey: keys.secretKey },
    );
    expect(verdict).toMatchObject({ status: 'valid' });
    expect(fields.get('signature-input')).toMatch(
      /^sig1=\("@method" "@path" "content-digest"\);created=\d+;nonce="[\w-]{22}";keyid="pk_snippet";alg="hmac-sha256"$/,
    );
  });

  it('stops before sending when a variable is unset', async () => {
    const snippet = curlSnippet({ operation: create, body: '{}', baseUrl: '' });
    const result = await run(which('bash'), ['-c', snippet], {
      cwd: project.dir,
      env: { PATH: tools, INSTITUTION_API_URL: 'http://api.example', INSTITUTION_PUBLIC_KEY: 'pk' },
    });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('INSTITUTION_SECRET_KEY');
  });

  it("names the variables it reads and the page's base URL, and POSTs without -X", () => {
    const snippet = curlSnippet({ operation: create, body: '{}', baseUrl: 'http://127.0.0.1:9' });
    expect(snippet).toContain('# INSTITUTION_API_URL (this page used http://127.0.0.1:9),');
    expect(snippet).toContain('# INSTITUTION_PUBLIC_KEY and INSTITUTION_SECRET_KEY.');
    expect(snippet).toContain('curl -i --data-binary @body.json');
    expect(curlSnippet({ operation: update, body: '{}', baseUrl: '' })).toContain(
      '# INSTITUTION_PUBLIC_KEY, INSTITUTION_SECRET_KEY and USER_ID.',
    );
  });
});

describe('the TypeScript snippet', () => {
  it('passes the body as a value and says the client sends these very bytes', () => {
    const snippet = typeScriptSnippet({
      operation: update,
      body: '{"firstName":"Ama","monthlyIncome":0}',
      baseUrl: '',
    });
    expect(snippet).toContain('these same 37 bytes');
    expect(snippet).toContain(
      'await users.updateUser(\n  process.env.USER_ID!,\n  {\n    "firstName": "Ama",',
    );
  });

  it('says when the client would send other bytes than the editor holds', () => {
    const snippet = typeScriptSnippet({ operation: create, body: '{ "a": 1 }', baseUrl: '' });
    expect(snippet).toContain('JSON.stringify(body), 7 bytes: not');
  });

  it('gives no call for a body that is not JSON', () => {
    const snippet = typeScriptSnippet({ operation: create, body: '{"a":', baseUrl: '' });
    expect(snippet).toContain('The request body is not JSON');
    expect(snippet).not.toContain('await users.');
  });
});

describe('helpers', () => {
  it('quotes any text as one bash word', () => {
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
  });

  it('reads USER_ID for {id}', () => {
    expect(parameterVariable('id')).toBe('USER_ID');
    expect(parameterVariable('account-id')).toBe('ACCOUNT_ID');
  });

  it("gives the client's text of a body", () => {
    expect(clientText('{ "a" : [1, 2] }')).toBe('{"a":[1,2]}');
    expect(clientText('nope')).toBeUndefined();
  });
});
