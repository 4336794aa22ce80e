/**
 * The runtimes the README promises, proven by running the README's Quick start (create, then
 * update) from the packed tarballs against the real reference server, on each: Node 22.13 (the
 * `engines` floor) and Node 24, Bun, Deno (`--node-modules-dir=manual`) and workerd (the worker
 * bundled by esbuild for workers, no `nodejs_compat`). Each runtime is installed from the npm
 * registry by this test into a cache reused between runs (support/runtimes.ts); one that cannot
 * be installed fails with npm's reason, never skips.
 *
 * Each run prints which signer `@institution-api/signing/signer` resolved to in that runtime,
 * through the same `exports` conditions the client's own import of it takes: `node:crypto` where
 * the `node` condition applies (Node, Bun, Deno), Web Crypto in the worker. A recording proxy in
 * front of the server records what the server answered: POST 201, then PUT 200 on the new id.
 * The server's key requires message signatures, so each runtime's client signs both ways.
 * Needs the three packages and the reference server built (turbo's test task depends on both).
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { packedTarballs } from '@institution-api/test-support/packed-tarballs';
import { type Exchange, startRecordingProxy } from '@institution-api/test-support/recording-proxy';
import {
  type Credential,
  type RunningServer,
  startReferenceServer,
} from '@institution-api/test-support/reference-server';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readmeQuickStart } from './support/readme-quick-start.js';
import { type InstalledTool, installTool, type RegistryTool, tools } from './support/runtimes.js';

const exec = promisify(execFile);
const uuid = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

/** What a run of the Quick start printed, and how it ended. */
interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The reader's project: the tarballs installed, the Quick start beside them. */
let project: string;
let workdir: string;

/** A runtime of the matrix: what to install, which signer it must use, how to run the Quick start. */
interface Runtime {
  name: string;
  /** The runtime first, then any tool its run needs. */
  tools: RegistryTool[];
  signer: 'node:crypto' | 'web-crypto';
  run: (installed: InstalledTool[], env: NodeJS.ProcessEnv) => Promise<RunResult>;
}

/** Node runs the Quick start compiled to JavaScript, as the README says (`npx tsc`, then `node`). */
const onNode = ([node]: InstalledTool[], env: NodeJS.ProcessEnv) =>
  runIn(node?.binary ?? '', ['main-js.mjs'], env);

const runtimes: Runtime[] = [
  { name: 'Node 22', tools: [tools.node22], signer: 'node:crypto', run: onNode },
  { name: 'Node 24', tools: [tools.node24], signer: 'node:crypto', run: onNode },
  {
    name: 'Bun',
    tools: [tools.bun],
    signer: 'node:crypto',
    // Bun runs the TypeScript as written
    run: ([bun], env) => runIn(bun?.binary ?? '', ['main-ts.mjs'], env),
  },
  {
    name: 'Deno',
    tools: [tools.deno],
    signer: 'node:crypto',
    // Deno runs the TypeScript as written, with the packages npm installed in node_modules
    run: ([deno], env) =>
      runIn(deno?.binary ?? '', ['run', '-A', '--node-modules-dir=manual', 'main-ts.mjs'], {
        ...env,
        DENO_NO_UPDATE_CHECK: '1',
      }),
  },
  {
    name: 'workerd',
    tools: [tools.workerd, tools.esbuild],
    signer: 'web-crypto',
    run: runInWorkerd,
  },
];

beforeAll(async () => {
  workdir = await mkdtemp(join(tmpdir(), 'institution-api-runtimes-'));
  const tarballDir = await packedTarballs();
  project = join(workdir, 'app');
  await mkdir(project);
  await writeFile(
    join(project, 'package.json'),
    JSON.stringify({ name: 'runtime-matrix', private: true, type: 'module' }),
  );
  const tarballs = (await readdir(tarballDir)).map((file) => join(tarballDir, file));
  // the README's install command (every tarball, the CLI's too); their dependencies from npm's
  // cache where it can
  await exec(
    'npm',
    ['install', ...tarballs, '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'],
    { cwd: project },
  );

  const quickStart = readmeQuickStart();
  await writeFile(join(project, 'quick-start.ts'), quickStart);
  const compiled = ts.transpileModule(quickStart, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  await writeFile(join(project, 'quick-start.mjs'), compiled.outputText);
  // The signer line first, then the Quick start itself, unchanged.
  const signerLine = [
    "import { SIGNER_RUNTIME } from '@institution-api/signing/signer';",
    "console.log('signer: ' + SIGNER_RUNTIME);",
  ];
  await writeFile(
    join(project, 'main-js.mjs'),
    [...signerLine, "await import('./quick-start.mjs');", ''].join('\n'),
  );
  await writeFile(
    join(project, 'main-ts.mjs'),
    [...signerLine, "await import('./quick-start.ts');", ''].join('\n'),
  );
}, 300_000);

afterAll(async () => {
  if (workdir) await rm(workdir, { recursive: true, force: true });
});

/** One line per runtime for the CI log: version, what the server answered, how long it took. */
const matrix: string[] = [];
afterAll(() => {
  if (matrix.length > 0) console.log(`runtime matrix:\n${matrix.join('\n')}`);
});

describe.each(runtimes)('the README Quick start on $name', { timeout: 300_000 }, (runtime) => {
  let installed: InstalledTool[];
  let server: RunningServer;
  let proxy: Awaited<ReturnType<typeof startRecordingProxy>>;
  const credential: Credential = {
    institution: `Runtime matrix (${runtime.name})`,
    publicKey: `pk_runtime_${randomBytes(6).toString('hex')}`,
    secretKey: randomBytes(24).toString('base64url'),
  };

  beforeAll(async () => {
    installed = [];
    for (const wanted of runtime.tools) installed.push(await installTool(wanted));
    // A key that requires message signatures: each runtime's client must sign both ways.
    const requiring = { ...credential, messageSignature: 'required' as const };
    server = await startReferenceServer({ credentials: [requiring] });
    proxy = await startRecordingProxy(new URL(server.url));
  }, 600_000);

  afterAll(async () => {
    await proxy?.close();
    await server?.stop();
  });

  it(`creates (201) then updates (200), signing with ${runtime.signer}`, async () => {
    const started = performance.now();
    const result = await runtime.run(installed, {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      INSTITUTION_API_URL: proxy.url,
      INSTITUTION_PUBLIC_KEY: credential.publicKey,
      INSTITUTION_SECRET_KEY: credential.secretKey,
    });
    const elapsed = Math.round(performance.now() - started);

    expect(result.code, `${runtime.name} failed:\n${result.stdout}${result.stderr}`).toBe(0);
    const printed = new RegExp(`^signer: ${runtime.signer}\\nnew user (${uuid})$`, 'm');
    const match = printed.exec(result.stdout);
    expect(match, result.stdout).not.toBeNull();
    const id = match?.[1];
    const exchanges: Exchange[] = proxy.exchanges;
    expect(exchanges.map(({ method, path, status }) => ({ method, path, status }))).toEqual([
      { method: 'POST', path: '/api/v1/external/users', status: 201 },
      { method: 'PUT', path: `/api/v1/external/users/${id}`, status: 200 },
    ]);
    matrix.push(
      `  ${runtime.name} (${installed.map(({ version }) => version).join(', ')}): ` +
        `${exchanges.map(({ method, status }) => `${method} ${status}`).join(', ')}, ` +
        `signer ${runtime.signer}, ${elapsed} ms`,
    );
  });
});

/** Runs a runtime's binary in the project; resolves with its exit code and output. */
function runIn(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: project, env, timeout: 120_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * The Quick start in workerd, as a worker's author would put it: its imports at the top of the
 * worker, its statements in a handler (a worker may not fetch outside one), where `process.env`
 * is the worker's environment (its bindings: no Node globals without `nodejs_compat`). Bundled by
 * esbuild with the conditions workers resolve (`workerd`, `worker`, `browser`), then run once by
 * `workerd test`, which calls the handler and prints what it logs.
 */
async function runInWorkerd(
  [workerd, esbuild]: InstalledTool[],
  env: NodeJS.ProcessEnv,
): Promise<RunResult> {
  const quickStart = readmeQuickStart();
  const imports = quickStart.match(/^import [\s\S]*?;$/gm) ?? [];
  const statements = imports.reduce((text, line) => text.replace(line, ''), quickStart).trim();
  await writeFile(
    join(project, 'worker.ts'),
    [
      "import { SIGNER_RUNTIME } from '@institution-api/signing/signer';",
      ...imports,
      '',
      'export default {',
      '  async test(_controller: unknown, env: Record<string, string>) {',
      '    const process = { env };',
      "    console.log('signer: ' + SIGNER_RUNTIME);",
      statements,
      '  },',
      '};',
      '',
    ].join('\n'),
  );
  const bundled = await runIn(
    esbuild?.binary ?? '',
    [
      'worker.ts',
      '--bundle',
      '--format=esm',
      '--platform=neutral',
      '--conditions=workerd,worker,browser',
      '--main-fields=browser,module,main',
      '--outfile=worker.js',
    ],
    env,
  );
  if (bundled.code !== 0) return bundled;

  const binding = (name: string) => `(name = "${name}", text = ${JSON.stringify(env[name])})`;
  await writeFile(
    join(project, 'worker.capnp'),
    [
      'using Workerd = import "/workerd/workerd.capnp";',
      'const config :Workerd.Config = (',
      '  services = [',
      '    (name = "main", worker = .worker),',
      // the default outbound reaches public addresses only; the reference server is on loopback
      '    (name = "internet", network = (allow = ["public", "private", "local"])),',
      '  ],',
      ');',
      'const worker :Workerd.Worker = (',
      '  modules = [(name = "worker", esModule = embed "worker.js")],',
      '  compatibilityDate = "2025-09-01",',
      `  bindings = [${['INSTITUTION_API_URL', 'INSTITUTION_PUBLIC_KEY', 'INSTITUTION_SECRET_KEY'].map(binding).join(', ')}],`,
      ');',
      '',
    ].join('\n'),
  );
  const result = await runIn(workerd?.binary ?? '', ['test', 'worker.capnp'], env);
  // `workerd test` exits 0 when the handler returns; it reports a throw as "[ FAIL ]"
  return /\[ FAIL \]/.test(result.stderr) ? { ...result, code: result.code || 1 } : result;
}
