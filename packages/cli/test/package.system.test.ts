/**
 * The package as a user gets it, following the README's "Install" section: the tarballs of
 * `npm run pack` installed together in an empty project with the README's command, then
 * `npx institution-api` there, and the import's template, which the build writes, read from the
 * installed package. Last, `npm publish --dry-run`: what would be uploaded.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { packedTarballs } from '@institution-api/test-support/packed-tarballs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const exec = promisify(execFile);
const packageDir = fileURLToPath(new URL('../', import.meta.url));

/** The README's tarball install command and the folder it names. */
function readmeInstall() {
  const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
  const start = readme.indexOf('\n## Install\n');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  const install = /^npm install (\S+)\/\*\.tgz$/m.exec(section);
  if (!install?.[1]) throw new Error("the README's Install section has no tarball install command");
  return { command: install[0], folder: install[1] };
}

/** Runs a command in the project; resolves with its exit code and output. */
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

let workdir: string;
let project: string;

beforeAll(async () => {
  workdir = await mkdtemp(join(tmpdir(), 'institution-api-cli-package-'));
  project = join(workdir, 'app');
  await mkdir(project);
  await writeFile(join(project, 'package.json'), '{ "name": "app", "private": true }\n');
  const install = readmeInstall();
  // what `npm run pack` writes after its build (turbo's //#pack:tarballs task, once per run);
  // the mock's peer msw from npm's cache where it can (--prefer-offline, not --offline)
  const command = install.command.replace(install.folder, await packedTarballs());
  await exec(
    'sh',
    ['-c', `${command} --prefer-offline --no-audit --no-fund --ignore-scripts --silent`],
    { cwd: project },
  );
}, 300_000);

afterAll(async () => {
  if (workdir) await rm(workdir, { recursive: true, force: true });
});

describe('the README install section, followed in an empty project', { timeout: 60_000 }, () => {
  it('gives npx institution-api', async () => {
    const { code, stdout } = await run('npx', ['institution-api', '--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage:\n {2}institution-api sign <file.json>/);
  });

  it("ships the import's template, which imports cleanly (a dry run, nothing sent)", async () => {
    const template = join(project, 'node_modules/@institution-api/cli/templates/customers.csv');
    const { code, stdout } = await run(
      'npx',
      ['institution-api', 'import', template, '--dry-run', '--report', '-'],
      { INSTITUTION_API_URL: 'http://127.0.0.1:9' },
    );
    expect(code).toBe(0);
    const outcomes = stdout
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { outcome: string }).outcome);
    expect(outcomes.length).toBeGreaterThan(0);
    expect(new Set(outcomes)).toEqual(new Set(['valid']));
  });
});

describe('npm publish --dry-run', { timeout: 60_000 }, () => {
  it('passes, with the launcher, the program, the template, the guides and no source maps', async () => {
    // --offline: the dry run otherwise asks the registry whether the version exists.
    const { stdout } = await exec('npm', ['publish', '--dry-run', '--offline', '--json'], {
      cwd: packageDir,
      env: { ...process.env, npm_config_registry: 'http://127.0.0.1:4873/' },
    });
    const result = JSON.parse(stdout) as Record<string, { files: { path: string }[] }>;
    const files = result['@institution-api/cli']?.files.map((file) => file.path) ?? [];
    expect(files).toEqual(
      expect.arrayContaining([
        'CHANGELOG.md',
        'README.md',
        'package.json',
        'bin/institution-api.js',
        'dist/cli.js',
        'templates/customers.csv',
        'docs/import.md',
      ]),
    );
    expect(files.filter((file) => file.endsWith('.map') || file.endsWith('.d.ts'))).toEqual([]);
    expect(files.filter((file) => file.startsWith('test/') || file.startsWith('src/'))).toEqual([]);
  });
});
