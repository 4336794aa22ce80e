/**
 * The code samples on the docs page are run, so they cannot rot: each `x-codeSamples` entry of the
 * bundled spec the page is built from (`dist/openapi.json`) is executed as a reader would run it,
 * against the real reference server (its built `dist/main.js`, on an in-memory database), and the
 * answers are checked: create gives 201 for a new user and 200 when sent again, update gives 200.
 *
 * - `curl` samples run through `bash` with INSTITUTION_API_URL and the key pair in the
 *   environment; `npx institution-api sign` is the client package's CLI.
 * - `TypeScript` samples are compiled with `tsc` in strict mode against the client's published
 *   types (a sample that no longer type-checks fails here), then run with Node.
 *
 * A recording proxy between the samples and the server records what the server really answered.
 */
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CodeSample, readOperations } from './support/code-samples.js';
import { type Exchange, startRecordingProxy } from './support/recording-proxy.js';
import { type RunningServer, startReferenceServer } from './support/reference-server.js';
import { run } from './support/run.js';
import { createSampleProject } from './support/sample-project.js';

const specFile = new URL('../dist/openapi.json', import.meta.url);
const operations = readOperations(specFile);
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The languages every operation documents, and how a reader runs each. */
const runners = {
  curl: runCurl,
  TypeScript: runTypeScript,
} satisfies Record<string, (sample: CodeSample, env: SampleEnv) => Promise<string>>;
type Language = keyof typeof runners;

interface SampleEnv {
  dir: string;
  apiUrl: string;
  publicKey: string;
  secretKey: string;
  userId?: string;
}

function sampleOf(operationId: string, lang: Language): CodeSample {
  const sample = operations
    .find((operation) => operation.operationId === operationId)
    ?.samples.find((candidate) => candidate.lang === lang);
  if (!sample) throw new Error(`${operationId} has no ${lang} sample in ${specFile}`);
  return sample;
}

describe('x-codeSamples in the bundled spec', () => {
  it('documents every operation in curl and TypeScript, nothing else', () => {
    expect(operations.map((operation) => operation.operationId)).toEqual([
      'createUser',
      'updateUser',
    ]);
    for (const operation of operations) {
      expect(operation.samples.map((sample) => sample.lang).sort()).toEqual(
        Object.keys(runners).sort(),
      );
    }
  });
});

describe.each(Object.keys(runners) as Language[])(
  'the %s samples, run against the reference server',
  (lang) => {
    const credential = {
      institution: `Docs samples (${lang})`,
      publicKey: `pk_docs_${randomBytes(6).toString('hex')}`,
      secretKey: randomBytes(24).toString('base64url'),
    };
    let server: RunningServer;
    let proxy: Awaited<ReturnType<typeof startRecordingProxy>>;
    let project: Awaited<ReturnType<typeof createSampleProject>>;
    let env: SampleEnv;
    let createdId: string | undefined;

    beforeAll(async () => {
      // A fresh server per language: the samples of both languages create the same user.
      server = await startReferenceServer([credential]);
      proxy = await startRecordingProxy(new URL(server.url));
      project = await createSampleProject();
      env = {
        dir: project.dir,
        apiUrl: proxy.url,
        publicKey: credential.publicKey,
        secretKey: credential.secretKey,
      };
    });

    afterAll(async () => {
      await proxy?.close();
      await server?.stop();
      await project?.remove();
    });

    const exchanges = (from: number): Omit<Exchange, 'path'>[] =>
      proxy.exchanges.slice(from).map(({ method, status }) => ({ method, status }));

    it('createUser: 201 for a new user, then 200 when the same user is sent again', async () => {
      const sample = sampleOf('createUser', lang);
      const first = await runners[lang](sample, env);
      const second = await runners[lang](sample, env);

      expect(exchanges(0)).toEqual([
        { method: 'POST', status: 201 },
        { method: 'POST', status: 200 },
      ]);
      expect(proxy.exchanges.every((exchange) => exchange.path === '/api/v1/external/users')).toBe(
        true,
      );
      const firstId = userIdIn(lang, first, 'create');
      expect(userIdIn(lang, second, 'create')).toBe(firstId);
      if (lang === 'TypeScript') {
        expect(first).toMatch(/^created /);
        expect(second).toMatch(/^added to the institution /);
      }
      createdId = firstId;
    });

    it('updateUser: 200, with the user created above', async () => {
      if (createdId === undefined)
        throw new Error('the create sample must pass first: its id is updated');
      const from = proxy.exchanges.length;
      const output = await runners[lang](sampleOf('updateUser', lang), {
        ...env,
        userId: createdId,
      });

      expect(exchanges(from)).toEqual([{ method: 'PUT', status: 200 }]);
      expect(proxy.exchanges.at(-1)?.path).toBe(`/api/v1/external/users/${createdId}`);
      expect(userIdIn(lang, output, 'update')).toBe(createdId);
      if (lang === 'TypeScript') expect(output.trim()).toBe(`updated ${createdId} 2100`);
    });
  },
);

/**
 * The user id a sample printed. For curl, whose reader sees the raw answer, it also checks the
 * response shape: the create shape (snake_case account keys, `userImage`, `documents`) or the
 * update shape (camelCase account keys, `image`, `monthlyIncome`, no `documents`).
 */
function userIdIn(lang: Language, output: string, shape: 'create' | 'update'): string {
  if (lang === 'TypeScript') {
    const id = /[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}/.exec(output)?.[0];
    expect(id, `no user id in:\n${output}`).toMatch(uuid);
    return id as string;
  }
  const body = JSON.parse(output.slice(output.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
  if (shape === 'create') {
    expect(body.account).toMatchObject({ account_type: 'MOMO', account_name: 'Efua Owusu' });
    expect(body).toHaveProperty('userImage');
    expect(body).toHaveProperty('documents');
  } else {
    expect(body.account).toMatchObject({ accountType: 'MOMO', accountName: 'Efua Owusu' });
    expect(body).toMatchObject({ monthlyIncome: 2100, otherName: 'Adjoa' });
    expect(body).not.toHaveProperty('userImage');
    expect(body).not.toHaveProperty('documents');
  }
  expect(body.id).toMatch(uuid);
  return body.id as string;
}

/** The environment a reader sets before running a sample (the sample's first comment says so). */
function readerEnv({ apiUrl, publicKey, secretKey, userId }: SampleEnv): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    // npx runs the locally installed bin; never let it download a package of that name.
    npm_config_yes: 'false',
    npm_config_update_notifier: 'false',
    INSTITUTION_API_URL: apiUrl,
    INSTITUTION_PUBLIC_KEY: publicKey,
    INSTITUTION_SECRET_KEY: secretKey,
    ...(userId === undefined ? {} : { USER_ID: userId }),
  };
}

/** Runs a curl sample with bash (errexit, pipefail); resolves to what it printed. */
async function runCurl(sample: CodeSample, env: SampleEnv): Promise<string> {
  const script = join(env.dir, `${sample.operationId}.sh`);
  await writeFile(script, sample.source);
  const result = await run('bash', ['-eo', 'pipefail', script], {
    cwd: env.dir,
    env: readerEnv(env),
  });
  expect(result.code, `${sample.operationId} (curl) failed:\n${result.stderr}`).toBe(0);
  expect(result.stdout).toMatch(/^HTTP\/1\.1 20[01] /);
  return result.stdout;
}

/**
 * Compiles a TypeScript sample with `tsc` (strict, NodeNext, as a reader's project would) against
 * the workspace's `@institution-api/client`, runs the output with Node, and resolves to what it
 * printed.
 */
async function runTypeScript(sample: CodeSample, env: SampleEnv): Promise<string> {
  const source = join(env.dir, `${sample.operationId}.mts`);
  await writeFile(source, sample.source);
  const compiled = await run(
    process.execPath,
    [
      tsc,
      '--strict',
      '--noUncheckedIndexedAccess',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--target',
      'es2022',
      '--lib',
      'es2023',
      '--types',
      'node',
      '--skipLibCheck',
      '--outDir',
      join(env.dir, 'out'),
      source,
    ],
    { cwd: env.dir, env: { PATH: process.env.PATH } },
  );
  expect(
    compiled.code,
    `${sample.operationId} (TypeScript) does not compile:\n${compiled.stdout}`,
  ).toBe(0);
  const result = await run(process.execPath, [join(env.dir, 'out', `${sample.operationId}.mjs`)], {
    cwd: env.dir,
    env: readerEnv(env),
  });
  expect(result.code, `${sample.operationId} (TypeScript) failed:\n${result.stderr}`).toBe(0);
  return result.stdout;
}
