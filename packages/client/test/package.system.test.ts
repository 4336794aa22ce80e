/**
 * The packages as a consumer gets them, following the README's "Install" section to the letter:
 * the pack script of `npm run pack` writes the tarballs; an empty project gets the README's
 * package.json and tsconfig.json, byte for byte; the README's install command installs the
 * tarballs together (from npm's cache where it can). Then the README's Quick start and the
 * consumer code in ../consumer/ are compiled by the project's own TypeScript, the consumer code
 * of the last release (released/client-consumer.ts) too (the client's own breaking-change
 * check), and the client runs against a real local server. Catches what in-repo tests cannot: a
 * missing file in a tarball, an `exports` map that does not resolve, declarations that do not
 * compile, install instructions that do not work. Then the client's tarball alone with its
 * siblings, as an application installs it, brings nothing of the command line
 * (`@institution-api/cli`, whose own test installs it). Last, `npm publish --dry-run` of each
 * library.
 * Needs the published packages built (the turbo test task depends on build).
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parseAuthorization, verify } from '@institution-api/signing';
import { packedTarballs } from '@institution-api/test-support/packed-tarballs';
import {
  sendJson,
  startServer,
  type TestServer,
} from '@institution-api/test-support/recording-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREDENTIALS, userCreatedNew, userUpdated } from './support/examples.js';
import { readmeQuickStart } from './support/readme-quick-start.js';

const exec = promisify(execFile);
// the repository's semver (a root devDependency, untyped here): the README's range must accept
// the client's version, so a patch release does not need a README edit
const semver = createRequire(import.meta.url)('semver') as {
  satisfies: (version: string, range: string) => boolean;
};
const repository = fileURLToPath(new URL('../../../', import.meta.url));
const packages = join(repository, 'packages');
const consumerSources = fileURLToPath(new URL('../consumer/', import.meta.url));
const released = join(repository, 'released', 'client-consumer.ts');
const CLIENT = '@institution-api/client';
const PUBLISHED = ['signing', 'types', 'runtime', 'client', 'cli', 'conformance', 'mock'];
/**
 * The libraries among them whose entry point is dist/index.js (the CLI's own test packs it; the
 * runtime has subpath entries only).
 */
const LIBRARIES = PUBLISHED.filter((name) => name !== 'cli' && name !== 'runtime');
/** What installing the client brings: its siblings, openapi-fetch, and nothing of the CLI. */
const CLIENT_CLOSURE = [
  '@institution-api/client',
  '@institution-api/runtime',
  '@institution-api/signing',
  '@institution-api/types',
  'openapi-fetch',
  'openapi-typescript-helpers',
  'structured-headers',
];
const BUILT = [
  'signing/dist/index.js',
  'types/dist/index.js',
  'types/openapi.json',
  'types/openapi.yaml',
  'runtime/dist/user-details.js',
  'client/dist/index.js',
  'conformance/dist/cli.js',
  'mock/dist/index.js',
];

/** The README's "Install" section: its minimal project and its tarball install command. */
function readInstallSection() {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const start = readme.indexOf('\n## Install\n');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end);
  const block = (title: string) => {
    const match = new RegExp(`\`\`\`json title="${title}"\\n([\\s\\S]*?)\`\`\``).exec(section);
    if (!match?.[1]) throw new Error(`the README's Install section has no ${title} block`);
    return match[1];
  };
  const install = /^npm install (\S+)\/\*\.tgz$/m.exec(section);
  if (!install?.[1]) throw new Error("the README's Install section has no tarball install command");
  return {
    packageJson: block('package.json'),
    tsconfig: block('tsconfig.json'),
    installCommand: install[0],
    tarballDir: install[1],
    quickStart: readmeQuickStart(),
  };
}

let workdir: string;
let project: string;
let tarballDir: string;
let tarballs: string[];
let readme: ReturnType<typeof readInstallSection>;
let server: TestServer;
/** One `tsc` over every file that must compile (it checks @types/node once), one over invalid.ts. */
let validCompile: ReturnType<typeof compile>;
let invalidCompile: ReturnType<typeof compile>;
const VALID = ['quick-start.ts', 'usage.ts', 'released-consumer.ts'];

/** The errors `tsc` reported in one file, with their continuation lines. */
async function errorsIn(file: string) {
  const { stdout } = await validCompile;
  const errors: string[] = [];
  let inFile = false;
  for (const line of stdout.split('\n')) {
    if (/^\S/.test(line)) inFile = line.startsWith(`${file}(`);
    if (inFile) errors.push(line);
  }
  return errors.join('\n');
}

/** Runs a command in the consumer project, resolving with its exit code and output. */
async function run(file: string, args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await exec(file, args, {
      cwd: project,
      env: { ...process.env, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { code, stdout, stderr };
  }
}

/** The consumer's own `tsc` (its devDependency) on the README's tsconfig.json plus `files`. */
async function compile(files: string[]) {
  const name = `tsconfig.${files.join('-').replaceAll(/[^a-z0-9-]/gi, '_')}.json`;
  await writeFile(join(project, name), JSON.stringify({ extends: './tsconfig.json', files }));
  return run(join(project, 'node_modules', '.bin', 'tsc'), ['--noEmit', '-p', name]);
}

beforeAll(async () => {
  const missing = BUILT.filter((file) => !existsSync(join(packages, file)));
  if (missing.length > 0) {
    throw new Error(
      `build first (npx turbo run build --filter=@institution-api/client... --filter=@institution-api/conformance...): missing ${missing.join(', ')}`,
    );
  }
  readme = readInstallSection();
  workdir = await mkdtemp(join(tmpdir(), 'institution-api-consumer-'));
  // what `npm run pack` writes after its build (turbo's //#pack:tarballs task, once per run)
  tarballDir = await packedTarballs();
  tarballs = (await readdir(tarballDir)).sort();

  project = join(workdir, 'app');
  await mkdir(project);
  await writeFile(join(project, 'package.json'), readme.packageJson);
  await writeFile(join(project, 'tsconfig.json'), readme.tsconfig);
  // The README's command, with the tarballs' folder in place of the checkout's. The project's
  // other packages (openapi-fetch, typescript, @types/node) come from npm's cache when it holds
  // their registry metadata; a fresh `npm ci` caches their tarballs but not always that metadata,
  // so on a new machine npm asks the registry once (--prefer-offline, not --offline).
  const command = readme.installCommand.replace(readme.tarballDir, tarballDir);
  await exec(
    'sh',
    ['-c', `${command} --prefer-offline --no-audit --no-fund --ignore-scripts --silent`],
    {
      cwd: project,
    },
  );

  await writeFile(join(project, 'quick-start.ts'), readme.quickStart);
  for (const file of ['usage.ts', 'invalid.ts', 'run.mjs']) {
    await copyFile(join(consumerSources, file), join(project, file));
  }
  if (existsSync(released)) await copyFile(released, join(project, 'released-consumer.ts'));
  else await writeFile(join(project, 'released-consumer.ts'), 'export {};\n');
  // Both compiles check @types/node whole (the README's tsconfig keeps skipLibCheck off, so our
  // declarations are checked too): tens of seconds on a loaded 2-core machine, so they run here,
  // side by side, under the hook's budget rather than a test's.
  validCompile = compile(VALID);
  invalidCompile = compile(['invalid.ts']);
  await Promise.all([validCompile, invalidCompile]);

  server = await startServer(async (req, res) => {
    const header = parseAuthorization(req.headers.authorization);
    const valid =
      header?.publicKey === CREDENTIALS.publicKey &&
      (await verify(req.body, header.signature, CREDENTIALS.secretKey));
    if (!valid)
      return sendJson(res, 401, { type: 'about:blank', title: 'Unauthorized', status: 401 });
    if (req.method === 'POST') return sendJson(res, 201, userCreatedNew());
    return sendJson(res, 200, userUpdated());
  });
}, 400_000);

afterAll(async () => {
  await server?.close();
  if (workdir) await rm(workdir, { recursive: true, force: true });
});

describe('the README install section, followed in an empty project', { timeout: 60_000 }, () => {
  it('npm run pack writes one tarball per published package', () => {
    expect(tarballs).toHaveLength(PUBLISHED.length);
    for (const name of PUBLISHED) {
      expect(tarballs.some((file) => file.startsWith(`institution-api-${name}-`))).toBe(true);
    }
  });

  it('installs the tarballs together with one command', () => {
    const installed = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    for (const name of PUBLISHED) {
      expect(installed.dependencies[`@institution-api/${name}`]).toMatch(/^file:.*\.tgz$/);
      expect(existsSync(join(project, 'node_modules', '@institution-api', name))).toBe(true);
    }
  });

  it("gives a package.json whose client range the client's version satisfies", () => {
    const range = (JSON.parse(readme.packageJson) as { dependencies: Record<string, string> })
      .dependencies[CLIENT];
    const { version } = JSON.parse(
      readFileSync(join(packages, 'client', 'package.json'), 'utf8'),
    ) as { version: string };
    expect(
      range && semver.satisfies(version, range),
      `README range ${range}, client ${version}`,
    ).toBe(true);
  });

  it('compiles the Quick start as written, with the README tsconfig.json', async () => {
    expect(await errorsIn('quick-start.ts')).toBe('');
  });

  it('compiles consumer code using the whole public surface', async () => {
    expect(await errorsIn('usage.ts')).toBe('');
  });

  it('reports no error outside those files, and exits 0 exactly when it reports none', async () => {
    const { code, stdout } = await validCompile;
    const elsewhere = stdout
      .split('\n')
      .filter((line) => /^\S/.test(line) && !VALID.some((file) => line.startsWith(`${file}(`)));
    expect(elsewhere).toEqual([]);
    expect(code === 0).toBe(stdout === '');
  });

  it('refuses invalid calls at compile time', async () => {
    const { code, stdout } = await invalidCompile;
    expect(code).not.toBe(0);
    expect(stdout).toMatch(/invalid\.ts\(\d+,\d+\): error TS2345:[\s\S]*'network' is missing/);
    expect(stdout).toMatch(/invalid\.ts\(\d+,\d+\): error TS2345: Argument of type 'number'/);
    expect(stdout).toMatch(/invalid\.ts\(\d+,\d+\): error TS2353:[\s\S]*'nickname'/);
    expect(stdout.match(/error TS/g)).toHaveLength(3);
  });

  it('still compiles the consumer code of the last release (the client breaking-change check)', async (context) => {
    expect(existsSync(released), 'released/client-consumer.ts is missing').toBe(true);
    const { stdout: planJson } = await exec(process.execPath, [
      join(repository, 'scripts', 'release', 'check.mjs'),
      '--json',
    ]);
    const plan = JSON.parse(planJson) as {
      released: Record<string, string>;
      planned: Record<string, string>;
      breaking: Record<string, boolean>;
    };
    const errors = await errorsIn('released-consumer.ts');
    if (plan.breaking[CLIENT]) {
      // A changeset already plans a breaking release of the client: breaking is allowed.
      context.skip(`pending changesets take ${CLIENT} to ${plan.planned[CLIENT]}`);
    }
    expect(
      errors,
      `Client code written against ${CLIENT} ${plan.released[CLIENT]} no longer compiles against ` +
        `the current packages, so this change breaks the client's users:\n${errors}\n` +
        `Undo it, or add a changeset with a breaking bump of ${CLIENT} (minor while it is 0.x, ` +
        'major from 1.0); npm run release:version then snapshots the new consumer code.',
    ).toBe('');
  });

  it('reads both response shapes into a User with the same keys', async () => {
    const { code, stdout, stderr } = await run(process.execPath, ['run.mjs'], {
      API_URL: server.url,
      INSTITUTION_PUBLIC_KEY: CREDENTIALS.publicKey,
      INSTITUTION_SECRET_KEY: CREDENTIALS.secretKey,
    });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const result = JSON.parse(stdout) as { created: boolean; create: string[]; update: string[] };
    expect(result.created).toBe(true);
    expect(result.create).toEqual(result.update);
    expect(result.create).toContain('image');
    expect(result.create).toContain('documents');
    expect(result.create).toContain('monthlyIncome');
    expect(result.create).not.toContain('userImage');
    expect(server.requests.map((r) => r.method)).toEqual(['POST', 'PUT']);
  });

  it('installs the institution-api-conformance executable, which plans a run from its own bundled spec', async () => {
    const { code, stdout } = await run(
      join(project, 'node_modules/.bin/institution-api-conformance'),
      ['run', '--dry-run', '--base-url', 'http://127.0.0.1:9'],
      { INSTITUTION_PUBLIC_KEY: 'consumer-key', INSTITUTION_SECRET_KEY: 'consumer-secret' },
    );
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /contract: +User Management Interface of the Institution Service \d+\.\d+\.\d+ \(the bundled spec/,
    );
    expect(stdout).toMatch(/updateUser \(PUT \/api\/v1\/external\/users\/\{id\}\)/);
  });
});

describe('the client installed alone, as an application installs it', { timeout: 120_000 }, () => {
  it('brings only what a call needs: its siblings and openapi-fetch, no command line', async () => {
    const app = join(workdir, 'lean');
    await mkdir(app);
    await writeFile(join(app, 'package.json'), '{ "name": "lean", "private": true }\n');
    const siblings = ['client', 'runtime', 'signing', 'types'].map((name) => {
      const file = tarballs.find((tarball) => tarball.startsWith(`institution-api-${name}-`));
      return join(tarballDir, file ?? `institution-api-${name}-missing.tgz`);
    });
    await exec(
      'npm',
      ['install', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund', ...siblings],
      { cwd: app },
    );
    const { stdout } = await exec('npm', ['ls', '--all', '--parseable', '--omit=dev'], {
      cwd: app,
    });
    const installed = stdout
      .trim()
      .split('\n')
      .slice(1) // the project itself
      .map((path) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length))
      .sort();
    expect(installed).toEqual(CLIENT_CLOSURE);
    expect(existsSync(join(app, 'node_modules', '.bin', 'institution-api'))).toBe(false);
  });
});

describe('npm publish --dry-run', { timeout: 60_000 }, () => {
  it.each(LIBRARIES)(
    'passes for @institution-api/%s, with its changelog and no source maps',
    async (name) => {
      // --offline: the dry run otherwise asks the registry whether the version exists; the
      // registry is whatever npm_config_registry says, as for `npm run release`.
      const { stdout, stderr } = await exec(
        'npm',
        ['publish', '--dry-run', '--offline', '--json'],
        {
          cwd: join(packages, name),
          env: { ...process.env, npm_config_registry: 'http://127.0.0.1:4873/' },
        },
      );
      const result = JSON.parse(stdout) as Record<
        string,
        { name: string; version: string; files: { path: string }[] }
      >;
      const manifest = JSON.parse(readFileSync(join(packages, name, 'package.json'), 'utf8')) as {
        version: string;
      };
      const published = result[`@institution-api/${name}`];
      expect(published?.version).toBe(manifest.version);
      const files = published?.files.map((file) => file.path) ?? [];
      expect(files).toEqual(
        expect.arrayContaining(['CHANGELOG.md', 'README.md', 'package.json', 'dist/index.js']),
      );
      expect(files.filter((file) => file.endsWith('.map'))).toEqual([]);
      expect(stderr).toMatch(
        /Publishing to http:\/\/127\.0\.0\.1:4873\/ with tag latest and public access \(dry-run\)/,
      );
    },
  );
});
