#!/usr/bin/env node
// @ts-check
// `npm run release`: the second half of a release, after `npm run release:version` and its
// commit. Publishes the versions of the published packages (workspace.mjs, PUBLISHABLE: types,
// runtime, signing, client, cli, conformance, mock) that the registry does not have yet
// (`changeset publish`, which runs `npm publish` per package and tags the commit
// `<name>@<version>`). Private workspaces are never published.
//
// The registry is npm's: the project sets none (no publishConfig.registry), so
// `npm_config_registry=http://localhost:4873/ npm run release` publishes to a private or local
// registry, with that registry's credentials from your ~/.npmrc.
//
// It checks first, and stops at the first failure: a clean work tree; the release rules with
// --release (no pending changeset, released/ records exactly what is about to be published);
// lint with the breaking-change gate, typecheck and tests; `npm publish --dry-run` of each
// package against the chosen registry. `--dry-run` stops after those checks.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildPublished, checkEverything, step } from './steps.mjs';
import { PUBLISHABLE, readWorkspaces, repositoryRoot } from './workspace.mjs';

const { values: options } = parseArgs({
  options: { 'dry-run': { type: 'boolean', default: false } },
});

const dirty = execFileSync('git', ['status', '--porcelain'], {
  cwd: repositoryRoot,
  encoding: 'utf8',
});
if (dirty.trim() !== '') {
  console.error(
    `✖ The work tree has uncommitted changes; commit what npm run release:version wrote first:\n${dirty}`,
  );
  process.exit(1);
}
const registry = execFileSync('npm', ['config', 'get', 'registry'], {
  cwd: repositoryRoot,
  encoding: 'utf8',
}).trim();
console.log(`Releasing to ${registry}`);

buildPublished();
step('release rules, for publishing', 'node', ['scripts/release/check.mjs', '--release']);
checkEverything();
for (const { dir, json } of readWorkspaces(repositoryRoot)) {
  if (!PUBLISHABLE.includes(json.name)) continue;
  step(`npm publish --dry-run of ${json.name}@${json.version}`, 'npm', [
    'publish',
    '--dry-run',
    '--workspace',
    join(repositoryRoot, dir),
  ]);
}

if (options['dry-run']) {
  console.log('\n✔ Every check passed; --dry-run publishes nothing.');
  process.exit(0);
}
step('publish', 'npx', ['changeset', 'publish']);
console.log('\n✔ Published. Push the release commit and its tags: git push --follow-tags');
