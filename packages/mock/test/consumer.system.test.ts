/**
 * The README's Quick start in an empty project, everything from the packed tarballs, as a
 * consumer gets them before a release: the pack script writes the tarballs (`npm run pack`), the
 * project installs them with `msw` and `vitest`, and `npx vitest run` runs the README's test file
 * with the client: create `201`, again `200`, `409`, a forced `503` retried and then reported.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify, stripVTControlCharacters } from 'node:util';
import { packedTarballs } from '@institution-api/test-support/packed-tarballs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readmeQuickStart } from './support/readme.js';

const exec = promisify(execFile);
const repository = fileURLToPath(new URL('../../../', import.meta.url));
const versionOf = (file: string, name: string) => {
  const json = JSON.parse(readFileSync(join(repository, file), 'utf8'));
  return (json.devDependencies?.[name] ?? json.dependencies?.[name]) as string;
};

let workdir: string;
let project: string;
beforeAll(async () => {
  workdir = await mkdtemp(join(tmpdir(), 'institution-api-mock-consumer-'));
  const tarballs = await packedTarballs();
  project = join(workdir, 'app');
  await mkdir(project);
  await writeFile(
    join(project, 'package.json'),
    JSON.stringify({ name: 'my-integration-tests', private: true, type: 'module' }, null, 2),
  );
  const files = (await readdir(tarballs)).map((name) => join(tarballs, name));
  await exec(
    'npm',
    [
      'install',
      '--save-dev',
      ...files,
      `msw@${versionOf('packages/mock/package.json', 'msw')}`,
      `vitest@${versionOf('package.json', 'vitest')}`,
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--ignore-scripts',
      '--silent',
    ],
    { cwd: project },
  );
  await writeFile(join(project, 'users.test.ts'), readmeQuickStart());
}, 400_000);

afterAll(async () => {
  if (workdir) await rm(workdir, { recursive: true, force: true });
});

it("runs the README's vitest + MSW + client example", { timeout: 120_000 }, async () => {
  const { stdout: colored } = await exec(
    process.execPath,
    [
      join(project, 'node_modules', 'vitest', 'vitest.mjs'),
      'run',
      '--reporter=verbose',
      '--color=false',
      // the example as written, on a machine that runs every other suite beside it
      '--testTimeout=30000',
    ],
    { cwd: project, env: { ...process.env, CI: 'true' } },
  );
  const stdout = stripVTControlCharacters(colored);
  console.log(`the README's example in a consumer project, from the tarballs:\n${stdout}`);
  expect(stdout).toMatch(/✓ users\.test\.ts > create 201, again 200/);
  expect(stdout).toMatch(/✓ users\.test\.ts > a forced 503 is retried, then reported/);
  expect(stdout).toMatch(/Tests +2 passed \(2\)/);
});
