#!/usr/bin/env node
// @ts-check
// `npm run release:rehearse`: the whole release on a throwaway clone of HEAD, publishing nothing,
// so that the maintainer who releases knows beforehand that each step of "Releasing" (README)
// goes through, and the commit it makes is the one they will review:
//
// 1. clones HEAD (committed work only) into a temporary directory and installs it (`npm ci`,
//    sharing this checkout's turbo cache, so unchanged builds and tests are cache hits);
// 2. `npm run release:version` there: the checks, the changesets applied, the CHANGELOGs,
//    released/; then commits it, as the maintainer would;
// 3. checks what it wrote: every published package at the version the changesets planned, each
//    CHANGELOG.md's first entry that version, released/versions.json the same versions, no
//    changeset left;
// 4. `npm run release -- --dry-run` there: the checks again, with the breaking-change gate against
//    the released contract, and `npm publish --dry-run` of every package at its new version;
// 5. `changeset git-tag` there: one tag per package, `<name>@<version>`.
//
// It prints the versions and the tags, and removes the clone (`--keep` keeps it, to read the
// commit). The registry is never written to: the dry runs are offline.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CONTRACT_PACKAGE, PUBLISHABLE, readWorkspaces, repositoryRoot } from './workspace.mjs';

const { values: options } = parseArgs({ options: { keep: { type: 'boolean', default: false } } });

const clone = join(mkdtempSync(join(tmpdir(), 'institution-api-release-')), 'repository');
const env = {
  ...process.env,
  REDOCLY_TELEMETRY: 'off',
  TURBO_TELEMETRY_DISABLED: '1',
  // Builds and tests of unchanged files are cache hits of this checkout's turbo cache.
  TURBO_CACHE_DIR: join(repositoryRoot, '.turbo', 'cache'),
};
/** Nothing reaches a registry: `npm publish --dry-run` packs and reports, offline. */
const offline = { npm_config_offline: 'true' };

/**
 * Runs a step in the clone, printing it; stops the rehearsal at the first failure.
 *
 * @param {string} title @param {string} command @param {string[]} args
 * @param {Record<string, string>} [more] environment of this step
 */
function step(title, command, args, more = {}) {
  console.log(`\n▶ rehearsal: ${title}: ${command} ${args.join(' ')}`);
  const { status } = spawnSync(command, args, {
    cwd: clone,
    env: { ...env, ...more },
    stdio: 'inherit',
  });
  if (status !== 0) fail(`${title} failed (the clone is kept: ${clone})`);
}

/** @param {string} message @returns {never} */
function fail(message) {
  console.error(`\n✖ release rehearsal: ${message}`);
  process.exit(1);
}

/** @param {string[]} args */
const git = (...args) => execFileSync('git', args, { cwd: clone, encoding: 'utf8', env }).trim();

/** The planned versions of the clone's pending changesets. @returns {Record<string, string>} */
function plannedVersions() {
  const out = execFileSync('node', ['scripts/release/check.mjs', '--json'], {
    cwd: clone,
    encoding: 'utf8',
    env,
  });
  return JSON.parse(out).planned;
}

/** What release:version wrote, against what was planned; one sentence per mismatch. @param {Record<string, string>} planned */
function versionProblems(planned) {
  const problems = [];
  const released = JSON.parse(readFileSync(join(clone, 'released', 'versions.json'), 'utf8'));
  for (const { dir, json } of readWorkspaces(clone)) {
    if (!PUBLISHABLE.includes(json.name)) continue;
    if (json.version !== planned[json.name]) {
      problems.push(
        `${json.name} is ${json.version}, the changesets planned ${planned[json.name]}`,
      );
    }
    const changelog = readFileSync(join(clone, dir, 'CHANGELOG.md'), 'utf8');
    const top = /^## (\S+)$/m.exec(changelog)?.[1];
    if (top !== json.version) {
      problems.push(`${dir}/CHANGELOG.md starts with ${top ?? 'no entry'}, not ${json.version}`);
    }
    if (released[json.name] !== json.version) {
      problems.push(`released/versions.json says ${json.name} ${released[json.name]}`);
    }
  }
  const left = readdirChangesets();
  if (left.length > 0) problems.push(`changesets left: ${left.join(', ')}`);
  return problems;
}

function readdirChangesets() {
  return git('ls-files', '.changeset')
    .split('\n')
    .filter((file) => file.endsWith('.md') && !file.endsWith('README.md'));
}

try {
  console.log(`Rehearsing the release of ${headCommit()} in ${clone}`);
  execFileSync('git', ['clone', '--quiet', '--no-hardlinks', repositoryRoot, clone], {
    stdio: 'inherit',
  });
  step('install', 'npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error']);
  const planned = plannedVersions();
  step('apply the changesets (the first half)', 'npm', ['run', 'release:version']);
  git('add', '-A');
  git(
    '-c',
    'user.name=release rehearsal',
    '-c',
    'user.email=rehearsal@example.invalid',
    'commit',
    '-qm',
    `release: ${PUBLISHABLE.map((name) => `${name}@${planned[name]}`).join(', ')}`,
  );
  const problems = versionProblems(planned);
  if (problems.length > 0)
    fail(`release:version wrote what was not planned:\n  - ${problems.join('\n  - ')}`);
  step(
    'publish, as a dry run (the second half)',
    'npm',
    ['run', 'release', '--', '--dry-run'],
    offline,
  );
  step('a tag per package', 'npx', ['changeset', 'git-tag']);
  const tags = git('tag', '--list').split('\n').filter(Boolean).sort();
  const wanted = PUBLISHABLE.map((name) => `${name}@${planned[name]}`).sort();
  const missing = wanted.filter((tag) => !tags.includes(tag));
  if (missing.length > 0) fail(`no tag ${missing.join(', ')} (tags: ${tags.join(', ')})`);
  console.log(
    `\n✔ release rehearsal: versions applied and their CHANGELOG entries written, the gate passed against the released contract ${readReleased(
      CONTRACT_PACKAGE,
    )} → ${planned[CONTRACT_PACKAGE]}, npm publish --dry-run passed for each package, and tagged:\n${wanted.map((tag) => `  ${tag}`).join('\n')}`,
  );
} finally {
  if (!options.keep && existsSync(clone))
    rmSync(join(clone, '..'), { recursive: true, force: true });
  else console.log(`The clone is kept: ${clone}`);
}

/** The commit rehearsed. */
function headCommit() {
  return execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
    cwd: repositoryRoot,
    encoding: 'utf8',
  }).trim();
}

/** The version of `name` in this checkout's record of the last release. @param {string} name */
function readReleased(name) {
  return JSON.parse(readFileSync(join(repositoryRoot, 'released', 'versions.json'), 'utf8'))[name];
}
