#!/usr/bin/env node
// @ts-check
// `npm run release:version`: the first half of a release, run by the maintainer who releases.
//
// 1. Checks first, against the last release: the release rules (release:check), the
//    breaking-change gate (contract:diff), and lint, typecheck and tests of the spec and of the
//    published packages (the client's test compiles the last release's consumer code);
//    and a contract that changed since the last release must have a changeset for the types.
// 2. `changeset version`: applies the pending changesets (versions, exact sibling ranges,
//    CHANGELOG.md of each package), then refreshes package-lock.json.
// 3. Rebuilds and rewrites released/: the bundle about to be published (released/openapi.yaml),
//    the consumer code of the client about to be published (released/client-consumer.ts) and
//    the versions (released/versions.json); and records the contract's changes since the last
//    release in words (released/changes/<version>.json), which the docs' changelog page lists. The next gate and the next compatibility test
//    compare with these, so CI needs no network and no git tags.
//
// It commits nothing: review `git diff`, commit, then `npm run release` publishes.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { buildPublished, checkEverything, step } from './steps.mjs';
import {
  CLIENT_PACKAGE,
  CONTRACT_PACKAGE,
  PUBLISHABLE,
  plannedVersions,
  readReleasedVersions,
  readWorkspaces,
  repositoryRoot,
} from './workspace.mjs';

checkEverything();
buildPublished();
// A contract that changed since the last release needs a new types version, or released/ would
// record a different contract under the version already published.
const { planned } = await plannedVersions(repositoryRoot);
const releasedVersions = readReleasedVersions(repositoryRoot);
const contractChanged =
  readFileSync(join(repositoryRoot, 'packages', 'types', 'openapi.yaml'), 'utf8') !==
  readFileSync(join(repositoryRoot, 'released', 'openapi.yaml'), 'utf8');
if (contractChanged && planned[CONTRACT_PACKAGE] === releasedVersions?.[CONTRACT_PACKAGE]) {
  console.error(
    `\n✖ The contract changed since ${CONTRACT_PACKAGE} ${planned[CONTRACT_PACKAGE]} was released, but no changeset names ${CONTRACT_PACKAGE}:\n` +
      '  add one (npx changeset) with the bump npm run contract:diff shows, set info.version to match, and run this again.',
  );
  process.exit(1);
}
step('apply the changesets', 'npx', ['changeset', 'version']);
step('refresh package-lock.json', 'npm', [
  'install',
  '--package-lock-only',
  '--ignore-scripts',
  '--prefer-offline',
  '--no-audit',
  '--no-fund',
]);
buildPublished();

// Read once the packages are built: the contract's changes are read with the spec toolkit of
// @institution-api/runtime, which a fresh clone has not built yet when this script starts.
const { releaseRecord } = await import('../lib/contract-changes.mjs');
const released = join(repositoryRoot, 'released');
// Before the bundle is replaced: the comparison needs the last release's contract.
const record = releaseRecord(
  join(released, 'openapi.yaml'),
  join(repositoryRoot, 'packages', 'types', 'openapi.yaml'),
);
if (record.version !== record.since) {
  mkdirSync(join(released, 'changes'), { recursive: true });
  writeFileSync(
    join(released, 'changes', `${record.version}.json`),
    `${JSON.stringify(record, null, 2)}\n`,
  );
}
copyFileSync(
  join(repositoryRoot, 'packages', 'types', 'openapi.yaml'),
  join(released, 'openapi.yaml'),
);
copyFileSync(
  join(repositoryRoot, 'packages', 'client', 'consumer', 'usage.ts'),
  join(released, 'client-consumer.ts'),
);
const versions = Object.fromEntries(
  PUBLISHABLE.map((name) => [
    name,
    readWorkspaces(repositoryRoot).find(({ json }) => json.name === name)?.json.version,
  ]),
);
writeFileSync(join(released, 'versions.json'), `${JSON.stringify(versions, null, 2)}\n`);
raiseInstallRange(versions[CLIENT_PACKAGE]);
step('release rules, on the new versions', 'node', ['scripts/release/check.mjs', '--release']);

console.log(
  `\n✔ Versioned: ${Object.entries(versions)
    .map(([name, version]) => `${name}@${version}`)
    .join(', ')}.\n` +
    '  Review the diff (CHANGELOG.md files, versions, released/), commit it, then run npm run release.',
);

/**
 * The client README's Install section gives a package.json with a caret range of the client: a
 * breaking release (a 0.x minor, a major) leaves the version outside it, so the range is raised
 * to the new version (the client's package test follows that section in an empty project).
 *
 * @param {string | undefined} version
 */
function raiseInstallRange(version) {
  if (!version) return;
  const readme = join(repositoryRoot, 'packages', 'client', 'README.md');
  const text = readFileSync(readme, 'utf8');
  const dependency = `"${CLIENT_PACKAGE}": "`;
  const start = text.indexOf(dependency);
  if (start < 0) return;
  const from = start + dependency.length;
  const range = text.slice(from, text.indexOf('"', from));
  if (semver.satisfies(version, range)) return;
  writeFileSync(readme, `${text.slice(0, from)}^${version}${text.slice(from + range.length)}`);
  console.log(`  packages/client/README.md (Install): ${range} → ^${version}`);
}
