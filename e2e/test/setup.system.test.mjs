// @ts-check
// The README's set-up, followed as a newcomer does on a fresh clone: `npm install`, `npm start`,
// the CLI, the banner's curl line, the docs, and stopping `npm start` by its PID.
// The clone is a copy of this working tree's files (tracked, and new files not ignored), so what
// is tested is what would be committed; it gets its own `npm ci` (from npm's cache where it can),
// and it never sees this checkout's node_modules, dist/ or data/. Its build shares this checkout's
// turbo cache (TURBO_CACHE_DIR): turbo runs this test after the builds, and the same files hash
// alike, so `npm start` restores those outputs instead of building them a second time (the cold
// build itself is the one `npm test` ran first on a fresh clone).
import { execFile, spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { acceptsConnections } from '@institution-api/test-support/free-port';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

const exec = promisify(execFile);
const repository = fileURLToPath(new URL('../..', import.meta.url));
/** This checkout's turbo cache (turbo's default place), which the copy's build reads and fills. */
const turboCacheDir = join(repository, '.turbo', 'cache');

/** Figures of the walk, printed at the end for the CI log. @type {Record<string, string>} */
const timings = {};
/** @type {string} */
let clone;
/** `npm start`, once listening: its URL and the processes it started. @type {ReturnType<typeof npmStart> & { baseUrl: string; processes: number[] }} */
let start;

/** @param {string} to */
async function copyWorkingTree(to) {
  const { stdout } = await exec(
    'git',
    ['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
    {
      cwd: repository,
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  for (const file of stdout.split('\0').filter(Boolean)) {
    await mkdir(dirname(join(to, file)), { recursive: true });
    // a tracked file deleted in the working tree is not part of what would be committed
    await cp(join(repository, file), join(to, file)).catch((error) => {
      if (error.code !== 'ENOENT') throw error;
    });
  }
  // turbo hashes through git; a clone has a repository
  const git = (/** @type {string[]} */ ...args) => exec('git', args, { cwd: to });
  await git('init', '-q');
  await git('add', '-A');
  await git(
    '-c',
    'user.name=setup test',
    '-c',
    'user.email=setup@example.com',
    'commit',
    '-qm',
    'clone',
  );
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

/** `npm start` in the clone: resolves once its banner says where it listens. @param {string} cwd */
function npmStart(cwd) {
  const child = spawn('npm', ['start'], {
    cwd,
    // PORT=0: a free port (the banner says which); the rest is the newcomer's environment
    env: {
      ...process.env,
      PORT: '0',
      DATABASE_URL: '',
      INSTITUTION_CREDENTIALS: '',
      TURBO_CACHE_DIR: turboCacheDir,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  /** @type {Promise<number | string>} */
  const exited = new Promise((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'exit')),
  );
  /** @type {Promise<string>} */
  const listening = new Promise((resolve, reject) => {
    const onData = (/** @type {Buffer} */ chunk) => {
      output += chunk;
      const baseUrl = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      if (baseUrl && /--data-binary '[^']*'\n/.test(output)) resolve(baseUrl);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    exited.then((code) =>
      reject(new Error(`npm start exited (${code}) before listening:\n${output}`)),
    );
  });
  return { child, exited, listening, output: () => output };
}

/** The child processes of `pid` (Linux /proc). @param {number} pid */
async function childrenOf(pid) {
  const text = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '');
  return text.split(/\s+/).filter(Boolean).map(Number);
}

/** @param {number} pid @returns {Promise<number[]>} */
async function descendantsOf(pid) {
  const children = await childrenOf(pid);
  return [...children, ...(await Promise.all(children.map(descendantsOf))).flat()];
}

/** @param {number} pid */
function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

beforeAll(async () => {
  const scratch = await mkdtemp(join(tmpdir(), 'institution-api-fresh-clone-'));
  clone = join(scratch, 'institution-api');
  await timed('copy', () => copyWorkingTree(clone));
  await timed('npm install (npm ci, warm npm cache)', () =>
    exec('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: clone,
      maxBuffer: 64 * 1024 * 1024,
    }),
  );
  const started = npmStart(clone);
  const baseUrl = await timed(
    'npm start until listening (build from the turbo cache)',
    () => started.listening,
  );
  const pid = started.child.pid ?? 0;
  start = { ...started, baseUrl, processes: [pid, ...(await descendantsOf(pid))] };
}, 600_000);

afterAll(async () => {
  // whatever a failed stop left behind, by PID: npm, and the processes under it
  for (const pid of start?.processes ?? []) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  if (clone) await rm(dirname(clone), { recursive: true, force: true });
  console.log(`fresh-clone walk: ${JSON.stringify(timings)}`);
  // Removing the clone's node_modules (over 500 packages) took more than vitest's 10 s while
  // turbo ran the other workspaces' tests beside it.
}, 120_000);

describe('the README set-up on a fresh clone', () => {
  test('npm start prints the demo keys and a curl line that creates a user', async () => {
    const curl = /^curl [\s\S]*?--data-binary '[^']*'$/m.exec(start.output())?.[0];
    expect(curl).toBeDefined();
    const { stdout } = await exec('bash', ['-c', `${curl} -s -o /dev/null -w '%{http_code}'`]);
    expect(stdout).toBe('201');
    // The fresh server's first request (the contract validator compiles the spec then): 0.5 s on
    // a quiet machine, over 5 s while turbo runs the other workspaces' tests beside this one
    // (the docs' browser suites, Java and Go compiled, five JavaScript runtimes), vitest's default.
  }, 30_000);

  test('the CLI works right after npm start, with the banner keys', async () => {
    const help = await exec('npx', ['institution-api', '--help'], { cwd: clone });
    expect(help.stdout).toMatch(/^Usage:\n {2}institution-api sign/);

    const publicKey = /public key: (\S+)/.exec(start.output())?.[1];
    const secretKey = /secret key: (\S+)/.exec(start.output())?.[1];
    const file = join(clone, 'new-user.json');
    await writeFile(
      file,
      JSON.stringify({
        email: 'kofi.setup@example.com',
        firstName: 'Kofi',
        lastName: 'Setup',
        mobileNumber: '0201234567',
        ghanaCardNumber: 'GHA-918273645-1',
        monthlyIncome: 900,
      }),
    );
    const created = await exec('npx', ['institution-api', 'create', file], {
      cwd: clone,
      env: {
        ...process.env,
        INSTITUTION_PUBLIC_KEY: publicKey,
        INSTITUTION_SECRET_KEY: secretKey,
        INSTITUTION_API_URL: start.baseUrl,
      },
    });
    expect(created.stdout).toContain('"email": "kofi.setup@example.com"');
    // Two npx starts: about 1 s each on a quiet machine, over 2.5 s each while turbo runs the other
    // workspaces' tests beside this one (seen: a timeout at vitest's default 5 s).
  }, 30_000);

  test('the conformance suite passes against npm start, with the banner keys', async () => {
    const publicKey = /public key: (\S+)/.exec(start.output())?.[1];
    const secretKey = /secret key: (\S+)/.exec(start.output())?.[1];
    // The README's command: the default budget and rate, one institution.
    const { stdout } = await exec(
      'npx',
      ['institution-api-conformance', 'run', '--base-url', start.baseUrl],
      {
        cwd: clone,
        env: {
          ...process.env,
          INSTITUTION_PUBLIC_KEY: publicKey,
          INSTITUTION_SECRET_KEY: secretKey,
        },
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    expect(stdout).toMatch(/✔ no check failed: \d+ requests/);
    expect(stdout).toContain('stateful_institution_scope · createUser: no second institution');
  }, 120_000);

  test('the docs are served', async () => {
    const page = await fetch(`${start.baseUrl}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain('<title>');
  });

  test('SIGTERM to the PID of npm start stops the server and frees the port within 5 s', async () => {
    const npmPid = start.child.pid ?? 0;
    const server = await childrenOf(npmPid);
    expect(server).toHaveLength(1); // npm runs the server itself, with no shell in between
    const [serverPid = 0] = server;

    const stopped = performance.now();
    process.kill(npmPid, 'SIGTERM');
    const code = await start.exited;
    const port = Number(new URL(start.baseUrl).port);
    while ((await acceptsConnections(port)) && performance.now() - stopped < 5000) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    timings['SIGTERM to port free'] = `${Math.round(performance.now() - stopped)} ms`;
    expect(await acceptsConnections(port)).toBe(false);
    expect(isAlive(serverPid)).toBe(false);
    expect(code).toBe(0);
  }, 15_000);
});
