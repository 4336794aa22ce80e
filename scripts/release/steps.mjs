// @ts-check
// The steps both release scripts share: run a command in the repository, stop the release at the
// first failure, and the checks that come before changing or publishing anything.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { PUBLISHABLE, readWorkspaces, repositoryRoot } from './workspace.mjs';

const env = { ...process.env, REDOCLY_TELEMETRY: 'off', TURBO_TELEMETRY_DISABLED: '1' };

/**
 * Runs one step in the repository, printing it; exits 1 at the first failure.
 *
 * @param {string} title @param {string} command @param {string[]} args
 */
export function step(title, command, args) {
  console.log(`\n▶ ${title}: ${command} ${args.join(' ')}`);
  const { status } = spawnSync(command, args, { cwd: repositoryRoot, env, stdio: 'inherit' });
  if (status !== 0) {
    console.error(`\n✖ ${title} failed: nothing was released.`);
    process.exit(1);
  }
}

/**
 * The release rules, lint with the breaking-change gate, then typecheck and tests of the spec
 * and the published packages (the client's test compiles the last release's consumer code).
 */
export function checkEverything() {
  step('release rules', 'node', ['scripts/release/check.mjs']);
  step('lint, with the breaking-change gate', 'npm', ['run', 'lint', '--silent']);
  const filters = ['@institution-api/openapi', ...PUBLISHABLE].map((name) => `--filter=${name}`);
  step('typecheck and tests', 'npx', ['turbo', 'run', 'typecheck', 'test', ...filters]);
}

/**
 * Builds the published packages and what they are built from, from an empty `dist/`: `tsc` and
 * turbo's cache only ever add files, so a module deleted or moved since the last build would
 * otherwise still be in the tarball (`files` takes all of `dist`).
 */
export function buildPublished() {
  for (const { dir, json } of readWorkspaces(repositoryRoot)) {
    if (PUBLISHABLE.includes(json.name))
      rmSync(join(repositoryRoot, dir, 'dist'), { recursive: true, force: true });
  }
  step('build what will be published', 'npx', [
    'turbo',
    'run',
    'build',
    '--force',
    '--filter=@institution-api/client...',
    '--filter=@institution-api/cli...',
    '--filter=@institution-api/conformance...',
    '--filter=@institution-api/mock...',
  ]);
}
