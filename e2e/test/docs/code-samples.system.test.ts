/**
 * The code samples on the docs page are run, so they cannot rot: each `x-codeSamples` entry of the
 * bundled spec the page is built from (`dist/openapi.json`), and the landing text's Quick start and
 * worked signing example, are executed as a reader would run them, against the real reference
 * server (its built `dist/main.js`, on an in-memory database), and the answers are checked: create
 * gives 201 for a new user and 200 when sent again, update gives 200.
 *
 * Every sample signs both ways (`Authorization: <publicKey>:<signature>` and an RFC 9421 message
 * signature: `Content-Digest`, `Signature-Input`, `Signature`), and runs with a key pair that
 * requires the message signature: a sample whose message signature is missing or wrong gets the
 * 401. The same key with the seed's header alone (the start banner's `curl` line) is refused
 * first, so a server that stopped requiring it fails here too.
 *
 * - `curl` samples run through `bash` with INSTITUTION_API_URL and the key pair in the environment
 *   and a PATH that holds curl, openssl, cat and awk and nothing else: no node, no npx, no CLI of
 *   this repository (a docs reader with curl and no Node can try the API).
 * - `TypeScript` samples are compiled with `tsc` in strict mode against the client's published
 *   types (a sample that no longer type-checks fails here), then run with Node.
 * - `Python`, `PHP`, `Go` and `Java` samples run on the toolchains Debian 12 ships (Python 3.11,
 *   PHP 8.2 with php-curl, Go 1.19, Java 17; `.ci/run` installs them): Python and PHP as a reader
 *   runs them, Go after `gofmt -l` and `go vet`, Java after `javac -Xlint:all -Werror` (both
 *   compiled once per text by `@institution-api/test-support/compiled-programs`). Each prints the status code, then
 *   the body, and must exit non-zero on an error status: a sample sent with a wrong secret key
 *   must print the 401 and fail.
 * - Every create runs after the reference server's start banner's own signed create (the first
 *   thing a newcomer pastes), so a sample that creates the banner's user fails. The
 *   banner's line is sent with another key pair of the same institution, one whose policy is the
 *   default (`any`), as the demo institution's is: it signs with the seed's header alone.
 *
 * A recording proxy between the samples and the server records what the server really answered.
 */

import { randomBytes } from 'node:crypto';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { compileGo, compileJava } from '@institution-api/test-support/compiled-programs';
import { type Exchange, startRecordingProxy } from '@institution-api/test-support/recording-proxy';
import {
  type Credential,
  startReferenceServer,
} from '@institution-api/test-support/reference-server';
import { type RunResult, run } from '@institution-api/test-support/run-program';
import { createSampleProject } from '@institution-api/test-support/sample-project';
import { pathWithOnly, which } from '@institution-api/test-support/shell-tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportedFile } from '../workspaces.js';
import { type CodeSample, landingCodeBlocks, readOperations } from './support/code-samples.js';
import { bannerCurlCommand, bannerExampleUser } from './support/start-banner.js';
import { compileAndRun } from './support/typescript-sample.js';

const specFile = exportedFile('@institution-api/docs/openapi.json');
const operations = readOperations(specFile);
const bash = which('bash');
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * An INSTITUTION_CREDENTIALS entry; `messageSignature: 'required'` gives the pair the policy
 * `message-signature` (the reference server's `parseInstitutionCredentials`).
 */
type SampleCredential = Credential & { messageSignature?: 'required' | 'optional' };

/** What a curl sample may call besides bash's builtins: the whole PATH it runs with. */
const curlSampleTools = ['curl', 'openssl', 'cat', 'awk'];

/** The languages every operation documents, and how a reader runs each. */
const runners = {
  curl: runCurl,
  TypeScript: runTypeScript,
  Python: (sample, env) => runProgram({ command: which('python3'), args: [] }, sample, env, 'py'),
  PHP: (sample, env) => runProgram({ command: which('php'), args: [] }, sample, env, 'php'),
  Go: async (sample, env) => runProgram(await compileGo(sample.source), sample, env),
  Java: async (sample, env) => runProgram(await compileJava(sample.source), sample, env),
} satisfies Record<string, (source: Source, env: SampleEnv) => Promise<RunResult>>;
type Language = keyof typeof runners;

/** The languages whose samples print the status code on their first line, then the body. */
const statusPrinters = ['Python', 'PHP', 'Go', 'Java'] as const satisfies Language[];
type StatusPrinter = (typeof statusPrinters)[number];
const printsStatus = (lang: Language): lang is StatusPrinter =>
  (statusPrinters as readonly Language[]).includes(lang);

/** A program to run: its text, and a file name for it. */
interface Source {
  name: string;
  source: string;
}

interface SampleEnv {
  dir: string;
  apiUrl: string;
  publicKey: string;
  secretKey: string;
  userId?: string;
  /** The whole PATH of a curl sample (links to {@link curlSampleTools} only). */
  toolsPath: string;
}

function sampleOf(operationId: string, lang: Language): CodeSample {
  const sample = operations
    .find((operation) => operation.operationId === operationId)
    ?.samples.find((candidate) => candidate.lang === lang);
  if (!sample) throw new Error(`${operationId} has no ${lang} sample in ${specFile}`);
  return sample;
}

const asSource = (sample: CodeSample): Source => ({
  name: sample.operationId,
  source: sample.source,
});

/** The TypeScript block of the landing text's Quick start. */
function quickStart(): Source {
  const block = landingCodeBlocks(specFile, 'Quick start').find(({ lang }) => lang === 'ts');
  if (!block) throw new Error('the Quick start has no ts block');
  return { name: 'quickStart', source: block.source };
}

/** Ghana Card numbers in a text, normalized as the service compares them (`GHA-123456789-0`). */
function cardNumbersIn(text: string): string[] {
  return [...text.matchAll(/GHA-?(\d{9})-?(\d)/gi)].map(
    ([, body, check]) => `GHA-${body}-${check}`,
  );
}

describe('x-codeSamples in the bundled spec', () => {
  it('documents every operation in curl, TypeScript, Python, PHP, Go and Java, nothing else', () => {
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

  it('signs the curl samples with openssl, never with node, npx or the institution-api CLI', () => {
    for (const operation of operations) {
      const { source } = sampleOf(operation.operationId, 'curl');
      expect(source, operation.operationId).not.toMatch(/\bnpx\b|\bnode\b|institution-api/);
      expect(source, operation.operationId).toMatch(
        /openssl dgst -sha256 \\\n\s+-hmac "\$INSTITUTION_SECRET_KEY" user\.json/,
      );
      expect(source, operation.operationId).toContain('--data-binary @user.json');
    }
  });

  it("gives the samples and the Quick start a user of their own, not the start banner's", async () => {
    const banner = await bannerExampleUser();
    const [bannerCard] = cardNumbersIn(banner.ghanaCardNumber);
    const texts = [...operations.flatMap(({ samples }) => samples.map(asSource)), quickStart()];
    for (const { name, source } of texts) {
      expect(cardNumbersIn(source), name).not.toHaveLength(0);
      expect(cardNumbersIn(source), `${name} uses the banner's card number`).not.toContain(
        bannerCard,
      );
      expect(source.toLowerCase(), `${name} uses the banner's email`).not.toContain(
        banner.email.toLowerCase(),
      );
    }
  });
});

/**
 * A reference server (fresh per language: the samples of both languages create the same user),
 * a recording proxy in front of it, a reader's project directory, and the start banner's create
 * already sent through the proxy, as a newcomer who pasted it first would have. The institution
 * has two key pairs: the samples' requires message signatures, the banner's does not.
 */
function useSampleServer(lang: Language) {
  const institution = `Docs samples (${lang})`;
  const keyPair = (name: string) => ({
    institution,
    publicKey: `pk_docs_${name}_${randomBytes(6).toString('hex')}`,
    secretKey: randomBytes(24).toString('base64url'),
  });
  const credential: SampleCredential = { ...keyPair('samples'), messageSignature: 'required' };
  const bannerCredential: SampleCredential = keyPair('banner');
  const state = {} as {
    server: Awaited<ReturnType<typeof startReferenceServer>>;
    proxy: Awaited<ReturnType<typeof startRecordingProxy>>;
    project: Awaited<ReturnType<typeof createSampleProject>>;
    env: SampleEnv;
    createdId?: string;
    /** The exchanges from this index on, without their paths. */
    exchanges: (from: number) => Pick<Exchange, 'method' | 'status'>[];
  };

  beforeAll(async () => {
    state.server = await startReferenceServer({ credentials: [credential, bannerCredential] });
    state.proxy = await startRecordingProxy(new URL(state.server.url));
    state.project = await createSampleProject();
    state.env = {
      dir: state.project.dir,
      apiUrl: state.proxy.url,
      publicKey: credential.publicKey,
      secretKey: credential.secretKey,
      toolsPath: await pathWithOnly(join(state.project.dir, 'bin'), curlSampleTools),
    };
    state.exchanges = (from) =>
      state.proxy.exchanges.slice(from).map(({ method, status }) => ({ method, status }));

    const sendBannerLine = async (keys: Credential) =>
      run(bash, ['-c', await bannerCurlCommand(state.proxy.url, keys)], {
        cwd: state.project.dir,
        env: { PATH: state.env.toolsPath, HOME: state.project.dir },
      });
    const banner = await sendBannerLine(bannerCredential);
    expect(banner.code, `the start banner's curl line failed:\n${banner.stderr}`).toBe(0);
    expect(state.exchanges(0), "the start banner's create").toEqual([
      { method: 'POST', status: 201 },
    ]);
    // the seed's header alone, correctly signed with the samples' key: refused
    await sendBannerLine(credential);
    expect(state.exchanges(1), "the samples' key without a message signature").toEqual([
      { method: 'POST', status: 401 },
    ]);
  });

  afterAll(async () => {
    await state.proxy?.close();
    await state.server?.stop();
    await state.project?.remove();
  });

  return state;
}

/** The create and update samples of one language, run in turn against one server. */
function itRunsTheSamples(lang: Language, state: ReturnType<typeof useSampleServer>) {
  it("createUser: 201 for a new user (after the start banner's create), then 200 when sent again", async () => {
    const sample = asSource(sampleOf('createUser', lang));
    const from = state.proxy.exchanges.length;
    const first = succeeded(lang, await runners[lang](sample, state.env));
    const second = succeeded(lang, await runners[lang](sample, state.env));

    expect(state.exchanges(from)).toEqual([
      { method: 'POST', status: 201 },
      { method: 'POST', status: 200 },
    ]);
    expect(state.proxy.exchanges.every(({ path }) => path === '/api/v1/external/users')).toBe(true);
    if (printsStatus(lang)) {
      expect(first).toMatch(/^201\n/);
      expect(second).toMatch(/^200\n/);
    }
    const firstId = userIdIn(lang, first, 'create');
    expect(userIdIn(lang, second, 'create')).toBe(firstId);
    if (lang === 'TypeScript') {
      expect(first).toMatch(/^created /);
      expect(second).toMatch(/^added /);
    }
    state.createdId = firstId;
  });

  it('updateUser: 200, with the user created above', async () => {
    const { createdId } = state;
    if (createdId === undefined) {
      throw new Error('the create sample must pass first: its id is updated');
    }
    const from = state.proxy.exchanges.length;
    const output = succeeded(
      lang,
      await runners[lang](asSource(sampleOf('updateUser', lang)), {
        ...state.env,
        userId: createdId,
      }),
    );

    expect(state.exchanges(from)).toEqual([{ method: 'PUT', status: 200 }]);
    if (printsStatus(lang)) expect(output).toMatch(/^200\n/);
    expect(state.proxy.exchanges.at(-1)?.path).toBe(`/api/v1/external/users/${createdId}`);
    expect(userIdIn(lang, output, 'update')).toBe(createdId);
    if (lang === 'TypeScript') expect(output.trim()).toBe(`updated ${createdId} 2100`);
  });

  if (printsStatus(lang)) {
    it('exits non-zero on an error status, after printing it and the problem', async () => {
      const from = state.proxy.exchanges.length;
      const result = await runners[lang](asSource(sampleOf('createUser', lang)), {
        ...state.env,
        secretKey: `${state.env.secretKey}-not-the-key`,
      });

      expect(state.exchanges(from)).toEqual([{ method: 'POST', status: 401 }]);
      expect(result.code, result.stderr).not.toBe(0);
      const [status, ...body] = result.stdout.split('\n');
      expect(status).toBe('401');
      expect(JSON.parse(body.join('\n'))).toMatchObject({ status: 401, title: 'Unauthorized' });
    });
  }
}

describe('the curl samples, run with bash, curl and openssl alone', () => {
  const state = useSampleServer('curl');
  itRunsTheSamples('curl', state);

  // OpenSSL versions print the digest behind different labels (and LibreSSL differently again):
  // the sample must find the hex in each. A stand-in `openssl` prints the real HMAC in each form.
  it.each([
    ['OpenSSL 3, a file', 'HMAC-SHA2-256(user.json)= %s'],
    ['OpenSSL 1.1 and LibreSSL, a file', 'HMAC-SHA256(user.json)= %s'],
    ['OpenSSL 3, stdin', 'SHA2-256(stdin)= %s'],
    ['OpenSSL 1.0, stdin', '(stdin)= %s'],
    ['the bare digest', '%s'],
  ])('signs correctly when openssl prints the digest as %s does', async (_, format) => {
    const toolsPath = await pathWithOnly(
      join(state.env.dir, `bin-${randomBytes(4).toString('hex')}`),
      curlSampleTools.filter((tool) => tool !== 'openssl'),
    );
    const standIn = join(toolsPath, 'openssl');
    await writeFile(
      standIn,
      [
        `#!${bash}`,
        // Only the hex HMAC of the Authorization header is reformatted: the message signature's
        // binary digests, its nonce (rand) and base64 come from the real openssl as they are.
        `if [ "$1" != dgst ] || [[ " $* " = *" -binary "* ]]; then exec '${which('openssl')}' "$@"; fi`,
        // -r prints "<hex> *<file>" in every version; keep the hex, print it in this format.
        `digest=$('${which('openssl')}' dgst -r "\${@:2}") || exit 1`,
        `printf '${format}\\n' "\${digest%% *}"`,
        '',
      ].join('\n'),
    );
    await chmod(standIn, 0o755);

    const from = state.proxy.exchanges.length;
    succeeded(
      'curl',
      await runCurl(asSource(sampleOf('createUser', 'curl')), { ...state.env, toolsPath }),
    );
    expect(state.exchanges(from)).toEqual([{ method: 'POST', status: 200 }]);
  });
});

describe('the TypeScript samples, compiled against the client and run', () => {
  const state = useSampleServer('TypeScript');
  itRunsTheSamples('TypeScript', state);

  it("the Quick start: 201 for its own new user (after the banner's and the samples'), then 200", async () => {
    const from = state.proxy.exchanges.length;
    const first = succeeded('TypeScript', await runTypeScript(quickStart(), state.env));
    const second = succeeded('TypeScript', await runTypeScript(quickStart(), state.env));

    expect(state.exchanges(from)).toEqual([
      { method: 'POST', status: 201 },
      { method: 'POST', status: 200 },
    ]);
    const id = userIdIn('TypeScript', first, 'create');
    expect(first.trim()).toBe(`created ${id}`);
    expect(second.trim()).toBe(`added ${id}`);
  });
});

describe.each(statusPrinters)(
  'the %s samples, run on the toolchain Debian 12 ships',
  // a first compile (javac, go vet and build) with no cache, on a loaded machine
  { timeout: 180_000 },
  (lang) => {
    const state = useSampleServer(lang);
    itRunsTheSamples(lang, state);
  },
);

describe('the worked signing example in the landing text', () => {
  it('prints the signature it shows, with bash, openssl and awk alone', async () => {
    const blocks = landingCodeBlocks(specFile, 'Signing requests');
    const command = blocks.find(({ lang }) => lang === 'sh');
    const signature = blocks.find(({ lang }) => lang === 'text')?.source.trim();
    const header = blocks.find(({ lang }) => lang === 'http')?.source.trim();
    expect(signature).toMatch(/^[0-9a-f]{64}$/);
    expect(header).toMatch(new RegExp(`^Authorization: [^:]+:${signature}$`));
    if (!command) throw new Error('no sh block under "Signing requests"');

    const project = await createSampleProject();
    try {
      const result = await run(bash, ['-eo', 'pipefail', '-c', command.source], {
        cwd: project.dir,
        env: { PATH: await pathWithOnly(join(project.dir, 'bin'), ['openssl', 'awk']) },
      });
      expect(result.stderr).toBe('');
      expect(result.stdout).toBe(`${signature}\n`);
    } finally {
      await project.remove();
    }
  });
});

/**
 * The user id a sample printed. For the samples whose reader sees the raw answer (curl, and the
 * languages that print the status code then the body), it also checks the response shape: the
 * create shape (snake_case account keys, `userImage`, `documents`) or the update shape (camelCase
 * account keys, `image`, `monthlyIncome`, no `documents`).
 */
function userIdIn(lang: Language, output: string, shape: 'create' | 'update'): string {
  if (lang === 'TypeScript') {
    const id = /[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}/.exec(output)?.[0];
    expect(id, `no user id in:\n${output}`).toMatch(uuid);
    return id as string;
  }
  const bodyStart = lang === 'curl' ? output.indexOf('\r\n\r\n') + 4 : output.indexOf('\n') + 1;
  const body = JSON.parse(output.slice(bodyStart)) as Record<string, unknown>;
  if (shape === 'create') {
    expect(body.account).toMatchObject({ account_type: 'MOMO', account_name: 'Akosua Asante' });
    expect(body).toHaveProperty('userImage');
    expect(body).toHaveProperty('documents');
  } else {
    expect(body.account).toMatchObject({ accountType: 'MOMO', accountName: 'Akosua Asante' });
    expect(body).toMatchObject({ monthlyIncome: 2100, otherName: 'Adjoa' });
    expect(body).not.toHaveProperty('userImage');
    expect(body).not.toHaveProperty('documents');
  }
  expect(body.id).toMatch(uuid);
  return body.id as string;
}

/** What a sample printed, once it exited 0 (with what it wrote to stderr in the failure). */
function succeeded(lang: Language, result: RunResult): string {
  expect(result.code, `the ${lang} sample failed:\n${result.stdout}${result.stderr}`).toBe(0);
  if (lang === 'curl') expect(result.stdout).toMatch(/^HTTP\/1\.1 20[01] /);
  return result.stdout;
}

/** The environment a reader sets before running a sample (the sample's first comment says so). */
function readerEnv({ apiUrl, publicKey, secretKey, userId }: SampleEnv): NodeJS.ProcessEnv {
  return {
    INSTITUTION_API_URL: apiUrl,
    INSTITUTION_PUBLIC_KEY: publicKey,
    INSTITUTION_SECRET_KEY: secretKey,
    ...(userId === undefined ? {} : { USER_ID: userId }),
  };
}

/**
 * Runs a curl sample with bash (errexit, pipefail) and a PATH of {@link curlSampleTools} only, so
 * a sample that needs node, npx or a package's bin fails.
 */
async function runCurl({ name, source }: Source, env: SampleEnv): Promise<RunResult> {
  const script = join(env.dir, `${name}.sh`);
  await writeFile(script, source);
  return run(bash, ['-eo', 'pipefail', script], {
    cwd: env.dir,
    // HOME is the project: no ~/.curlrc of the machine's user changes what curl sends.
    env: { ...readerEnv(env), PATH: env.toolsPath, HOME: env.dir },
  });
}

/**
 * Runs a sample's program with the reader's environment: an interpreter given the sample as a
 * file (`extension` names it), or a compiled program.
 */
async function runProgram(
  program: { command: string; args: string[] },
  { name, source }: Source,
  env: SampleEnv,
  extension?: string,
): Promise<RunResult> {
  const args = [...program.args];
  if (extension) {
    const file = join(env.dir, `${name}.${extension}`);
    await writeFile(file, source);
    args.push(file);
  }
  return run(program.command, args, {
    cwd: env.dir,
    // PATH and HOME: Debian's interpreters need neither, but version managers' shims do.
    env: { ...readerEnv(env), PATH: process.env.PATH, HOME: process.env.HOME },
  });
}

/**
 * Compiles a TypeScript sample with `tsc` (strict, NodeNext, as a reader's project would) against
 * the workspace's `@institution-api/client`, and runs the output with Node.
 */
async function runTypeScript(sample: Source, env: SampleEnv): Promise<RunResult> {
  const { compiled, ran } = await compileAndRun(sample, env.dir, readerEnv(env));
  expect(compiled.code, `${sample.name} (TypeScript) does not compile:\n${compiled.stdout}`).toBe(
    0,
  );
  return ran as RunResult;
}
