// @ts-check
// The reference server's image (deploy/Dockerfile), built and run without a container engine
// (apps/reference-server/docs/deploying.md): these machines have no registry to pull node:24-slim
// from. The test reads the Dockerfile and performs its instructions (e2e/test/lib/dockerfile.mjs)
// on the working tree as a build would see it (less .dockerignore): the build stage's scripts with
// the dev dependencies, the production-only install in a directory holding only what the build
// stage staged, then the image's CMD from there on PostgreSQL, as the image's non-root user when
// this runs as root, with the image's environment only. A signed create must answer 201: a run-time
// import declared as a dev dependency fails here, as it would in the image. deploy/test-image.mjs
// builds and runs the real image with podman, where a base image can be made (opt-in, not part of
// npm test).
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { acceptsConnections, freePort } from '@institution-api/test-support/free-port';
import { startPostgres } from '@institution-api/test-support/postgres';
import { describeWith } from '@institution-api/test-support/requirements';
import { signedRequest } from '@institution-api/test-support/signed-request';
import { afterAll, beforeAll, expect, test } from 'vitest';
import {
  buildContextFiles,
  commandIn,
  parseDockerfile,
  performDockerfile,
  run,
} from './lib/dockerfile.mjs';

const exec = promisify(execFile);
const repository = fileURLToPath(new URL('../..', import.meta.url));
const dockerfile = readFileSync(join(repository, 'deploy/Dockerfile'), 'utf8');

const credential = {
  institution: 'Deploy test',
  publicKey: 'pk_deploy_test',
  secretKey: 'sk_deploy_test_0123456789abcdef',
};
const person = {
  email: 'ama.deploy@example.com',
  firstName: 'Ama',
  lastName: 'Deploy',
  mobileNumber: '0241234567',
  ghanaCardNumber: 'GHA-123123123-1',
  monthlyIncome: 1200,
};

/** @typedef {import('@institution-api/test-support/postgres').RunningPostgres} RunningPostgres */
/** @typedef {import('./lib/dockerfile.mjs').PerformedStage} Image */
/** @typedef {Awaited<ReturnType<typeof startImage>>} StartedImage */

/** Figures of the run, printed at the end for the CI log. @type {Record<string, string>} */
const timings = {};
/** @type {string | undefined} */
let scratch;
/** @type {Promise<RunningPostgres> | undefined} */
let database;
/** @type {RunningPostgres} */
let postgres;
/** @type {Image} */
let image;
/** @type {StartedImage} */
let server;

/** The working tree's files as git would commit them, less what .dockerignore keeps out. */
async function buildContext() {
  const { stdout } = await exec(
    'git',
    ['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
    { cwd: repository, maxBuffer: 64 * 1024 * 1024 },
  );
  const files = stdout
    .split('\0')
    .filter(Boolean)
    // a tracked file deleted in the working tree is not part of what would be committed
    .filter((file) => existsSync(join(repository, file)));
  const dockerignore = await readFile(join(repository, '.dockerignore'), 'utf8');
  return { directory: repository, files: buildContextFiles(files, dockerignore) };
}

/**
 * @template T
 * @param {string} name @param {() => Promise<T>} work
 */
async function timed(name, work) {
  const started = performance.now();
  const result = await work();
  timings[name] = `${((performance.now() - started) / 1000).toFixed(1)} s`;
  return result;
}

/**
 * The image's CMD, started as `docker run -e …` would, resolving once /healthz answers 200.
 *
 * @param {Record<string, string>} env
 */
async function startImage(env) {
  const { file, args, options } = commandIn(image, image.cmd ?? [], env);
  const child = spawn(file, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  /** @type {Promise<number | string>} */
  const exited = new Promise((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'exit')),
  );
  let gone = false;
  exited.then(() => {
    gone = true;
  });
  const url = `http://127.0.0.1:${env.PORT}`;
  for (const started = performance.now(); performance.now() - started < 60_000; ) {
    if (gone) throw new Error(`the image's CMD exited (${await exited}):\n${output}`);
    const status = await fetch(`${url}/healthz`).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) return { child, url, exited, output: () => output };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`the server did not answer /healthz within 60 s:\n${output}`);
}

/**
 * The image's HEALTHCHECK command: resolves with its exit code, or the failure's message.
 *
 * @param {Record<string, string>} env
 */
async function healthcheck(env) {
  const { file, args, options } = commandIn(image, image.healthcheck?.command ?? [], env);
  return run(file, args, options).then(
    () => 0,
    (/** @type {Error} */ error) => error.message,
  );
}

describeWith('postgres', 'deploy/Dockerfile, performed on a fresh copy of the repository', () => {
  /** What `docker run` / compose would give the container, besides the image's ENV. @type {Record<string, string>} */
  let runEnv;

  beforeAll(async () => {
    const made = await mkdtemp(join(tmpdir(), 'institution-api-image-'));
    scratch = made;
    // PostgreSQL starts while the image builds; kept as a promise, so that afterAll stops it even
    // when the build outlives this hook's timeout.
    database = startPostgres();
    database.catch(() => {});
    const context = await buildContext();
    image = await timed('build, staging and production install', () =>
      performDockerfile({
        dockerfile,
        context,
        scratch: made,
        // RUN steps get this machine's npm settings and cache (a build machine's, in the image),
        // take the cached packages first, and read this checkout's turbo cache, as a build
        // machine's remote cache would: the build stage restores what this run built.
        runEnv: {
          ...process.env,
          npm_config_prefer_offline: 'true',
          TURBO_CACHE_DIR: join(repository, '.turbo', 'cache'),
        },
      }),
    );
    postgres = await database;
    runEnv = {
      PORT: String(await freePort()),
      DATABASE_URL: postgres.url,
      INSTITUTION_CREDENTIALS: JSON.stringify([credential]),
      // Required on PostgreSQL (spec Assumptions, "Secrets at rest"; base64 of 32 bytes); a fresh one, never a committed one.
      CREDENTIALS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    };
    server = await timed('start until /healthz answers', () => startImage(runEnv));
  }, 600_000);

  afterAll(async () => {
    if (server && server.child.exitCode === null) server.child.kill('SIGKILL');
    await (await database?.catch(() => undefined))?.stop();
    if (scratch) await rm(scratch, { recursive: true, force: true });
    console.log(`deploy test: ${JSON.stringify(timings)}`);
    // two trees with node_modules to remove, beside the other workspaces' tests
  }, 120_000);

  test('the image is Node 24 slim, runs node itself as a non-root user, with the start flags', () => {
    const { args, stages } = parseDockerfile(dockerfile);
    expect(args.BASE_IMAGE).toMatch(/^node:24(\.\d+)*-slim$/);
    // every stage on that base (a build argument, so that a base made locally can stand for it)
    for (const stage of stages) {
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the Dockerfile's variable, not a template
      expect(stage.base).toBe('${BASE_IMAGE}');
    }
    expect(image.user?.uid).not.toBe(0);
    expect(image.env.HOST).toBe('0.0.0.0');
    expect(image.stopSignal).toBe('SIGTERM');
    // `node` itself, not npm or a shell (which would not pass SIGTERM on), with the heap flags of
    // the package's start script, which is what `npm start` runs.
    const { scripts } = JSON.parse(
      readFileSync(join(repository, 'apps/reference-server/package.json'), 'utf8'),
    );
    expect(image.cmd?.join(' ')).toBe(scripts.start);
  });

  test('the runtime holds the production dependencies only', async () => {
    const app = join(image.root, 'app');
    const installed = JSON.parse(
      await readFile(join(app, 'node_modules/.package-lock.json'), 'utf8'),
    ).packages;
    const { packages } = JSON.parse(await readFile(join(app, 'package-lock.json'), 'utf8'));
    const devOnly = Object.keys(installed).filter(
      (path) => /** @type {Record<string, { dev?: boolean }>} */ (packages)[path]?.dev,
    );
    expect(devOnly).toEqual([]);
    for (const tool of ['typescript', 'vitest', 'turbo', '@redocly/cli', '@biomejs/biome']) {
      expect(existsSync(join(app, 'node_modules', tool)), tool).toBe(false);
    }
    // the server as npm packs it: built code, migrations and the launcher of its bin, no sources
    // or tests (and its own node_modules for a version of a dependency that differs from the
    // hoisted one)
    const serverFiles = readdirSync(join(app, 'apps/reference-server')).filter(
      (entry) => entry !== 'node_modules',
    );
    expect(serverFiles.sort()).toEqual(['README.md', 'bin', 'dist', 'migrations', 'package.json']);
  });

  test('the key lifecycle command runs from it, as `docker exec … institution-api-server credentials` would', async () => {
    const { file, args, options } = commandIn(
      image,
      ['node', 'bin/institution-api-server.js', 'credentials', 'list', '--json'],
      runEnv,
    );
    const stdout = await run(file, args, options);
    const listed = JSON.parse(stdout);
    expect(
      listed.map((/** @type {{ institution: string; publicKey: string }} */ key) => [
        key.institution,
        key.publicKey,
      ]),
    ).toEqual([[credential.institution, credential.publicKey]]);
    expect(stdout).not.toContain(credential.secretKey);
  });

  test('the server started from it on PostgreSQL answers a signed create 201, then 200', async () => {
    const request = signedRequest('POST', `${server.url}/api/v1/external/users`, credential, {
      body: person,
      messageSignature: false,
    });
    const create = () => fetch(request.url, request);
    const first = await create();
    const created = await first.json();
    expect(first.status, JSON.stringify(created)).toBe(201);
    expect(created.email).toBe(person.email);
    const again = await create();
    expect(again.status).toBe(200);
    expect((await again.json()).id).toBe(created.id);
    // the rows are PostgreSQL's, not an embedded database's
    expect(await postgres.psql(`SELECT count(*) FROM users WHERE id = '${created.id}'`)).toBe('1');
    // the docs page is part of the image too
    expect((await fetch(`${server.url}/docs`)).status).toBe(200);
  });

  test('it runs as the image user when the test may switch users', async () => {
    const status = await readFile(`/proc/${server.child.pid}/status`, 'utf8');
    const uid = Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
    expect(uid).toBe(process.getuid?.() === 0 ? image.user?.uid : process.getuid?.());
  });

  test('the HEALTHCHECK passes while it runs; SIGTERM stops it (exit 0, port free) and then the HEALTHCHECK fails', async () => {
    expect(await healthcheck(runEnv)).toBe(0);

    server.child.kill(/** @type {NodeJS.Signals} */ (image.stopSignal));
    expect(await server.exited).toBe(0);
    expect(server.output()).toContain('"msg":"stopped"');
    expect(await acceptsConnections(Number(runEnv.PORT))).toBe(false);
    expect(await healthcheck(runEnv)).toMatch(/healthcheck: \/healthz did not answer/);
  }, 30_000);
});
