import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

const launcher = fileURLToPath(new URL('../bin/institution-api.js', import.meta.url));
let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'institution-api-launcher-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('bin/institution-api.js', () => {
  test('before the build, says in one line what to run instead of a module stack', async () => {
    // the launcher as in a checkout whose dist/ was never built
    await mkdir(join(scratch, 'bin'));
    await copyFile(launcher, join(scratch, 'bin', 'institution-api.js'));
    const failed = await promisify(execFile)(process.execPath, [
      join(scratch, 'bin', 'institution-api.js'),
      '--help',
    ]).catch((error: { code: number; stderr: string }) => error);
    expect(failed).toMatchObject({ code: 2 });
    const { stderr } = failed as { stderr: string };
    expect(stderr).toBe(
      'institution-api: the CLI is not built yet: run `npm start` or `npm run build` at the root of the repository first.\n',
    );
  });

  test('once built, runs the CLI', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [launcher, '--help']);
    expect(stdout).toMatch(/^Usage:\n {2}institution-api sign/);
  });
});
