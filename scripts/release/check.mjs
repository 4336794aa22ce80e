#!/usr/bin/env node
// The release rules, checked (`npm run release:check`, part of `npm run lint`, so of CI; and the
// first step of `npm run release:version` and `npm run release`):
//
// 1. The contract's version and the types package's version move together: info.version of
//    openapi/openapi.yaml equals the version @institution-api/types will have once the pending
//    changesets are applied (its version now, when none names it). A breaking contract change is a
//    major version of both (scripts/contract-diff.mjs enforces the major bump of info.version).
// 2. A major release of the types is a breaking release of the client, which re-exports them.
// 3. Sibling dependencies of the published packages are exact and equal the siblings' versions.
// 4. The published packages are public, with a README.md and a CHANGELOG.md that they ship;
//    every other workspace is private, so nothing else can be published, and depends on the
//    published ones with a range their next versions satisfy ("*").
// 5. released/ records the last release consistently (versions.json and the bundle's info.version).
//
// With --release (used by the release scripts), also: no changeset is pending, released/ records
// exactly the versions about to be published, and a contract that changed since the last release
// has a new types version. --json prints the versions instead (now, planned by the pending
// changesets, last released, and whether the plan leaves the last release's caret range).
// --root checks another checkout.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import semver from 'semver';
import { parse } from 'yaml';
import {
  CLIENT_PACKAGE,
  CONTRACT_PACKAGE,
  PUBLISHABLE,
  plannedVersions,
  readInfoVersion,
  readReleasedVersions,
  readWorkspaces,
  repositoryRoot,
} from './workspace.mjs';

const { values: options } = parseArgs({
  options: {
    root: { type: 'string', default: repositoryRoot },
    release: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  },
});
const root = resolve(options.root);

/**
 * Every broken rule of the checkout at `root`, as sentences naming the file and the fix.
 * @param {string} root
 * @param {{ release: boolean }} mode
 */
async function releaseProblems(root, { release }) {
  const problems = [];
  const workspaces = readWorkspaces(root);
  const byName = new Map(workspaces.map((workspace) => [workspace.json.name, workspace]));
  let plan;
  try {
    plan = await plannedVersions(root);
  } catch (error) {
    // Changesets refuses some trees outright (a public workspace depending on a private one).
    problems.push(`Changesets cannot plan the next release: ${error.message}`);
    const current = Object.fromEntries(
      workspaces
        .map(({ json }) => [json.name, json.version])
        .filter(([name]) => PUBLISHABLE.includes(name)),
    );
    plan = { current, planned: current, changesets: [] };
  }
  const { current, planned, changesets } = plan;
  const infoVersion = readInfoVersion(root);
  const released = readReleasedVersions(root);

  // 1. info.version is the version of the types package that will carry it.
  const typesPlanned = planned[CONTRACT_PACKAGE];
  if (infoVersion !== typesPlanned) {
    const pending =
      typesPlanned === current[CONTRACT_PACKAGE]
        ? `no pending changeset names ${CONTRACT_PACKAGE}, which is ${typesPlanned}`
        : `the pending changesets take ${CONTRACT_PACKAGE} from ${current[CONTRACT_PACKAGE]} to ${typesPlanned}`;
    problems.push(
      `openapi/openapi.yaml: info.version is ${infoVersion}, but ${pending}. ` +
        `The contract's version is the types package's version: set info.version to ${typesPlanned}, ` +
        `or add a changeset (npx changeset) whose bump of ${CONTRACT_PACKAGE} gives ${infoVersion}.`,
    );
  }

  // 2. The client re-exports the types: their breaking release is the client's too.
  if (released) {
    const typesBreaks = semver.major(typesPlanned) > semver.major(released[CONTRACT_PACKAGE]);
    const clientBreaks = !semver.satisfies(planned[CLIENT_PACKAGE], `^${released[CLIENT_PACKAGE]}`);
    if (typesBreaks && !clientBreaks) {
      problems.push(
        `${CONTRACT_PACKAGE} goes to ${typesPlanned}, a major release, but ${CLIENT_PACKAGE} only to ${planned[CLIENT_PACKAGE]}: ` +
          `the client re-exports the types, so add a changeset with a breaking bump of ${CLIENT_PACKAGE} ` +
          `(minor while it is 0.x, major from 1.0).`,
      );
    }
  }

  for (const name of PUBLISHABLE) {
    const workspace = byName.get(name);
    if (!workspace) {
      problems.push(`${name} is not a workspace of ${root}.`);
      continue;
    }
    const { dir, json } = workspace;
    // 3. Sibling ranges are exact and equal the siblings' versions.
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
      for (const [dependency, range] of Object.entries(json[field] ?? {})) {
        const sibling = byName.get(dependency);
        if (!sibling) continue;
        if (sibling.json.private) {
          problems.push(
            `${dir}/package.json: ${field} names ${dependency}, a private workspace that is never published.`,
          );
        } else if (range !== sibling.json.version) {
          problems.push(
            `${dir}/package.json: ${field}.${dependency} is "${range}", but ${dependency} is ${sibling.json.version}; siblings are pinned exactly to the version released with them.`,
          );
        }
      }
    }
    // 4. Public, documented, with a changelog that ships.
    if (json.private)
      problems.push(`${dir}/package.json: ${name} is published, so it cannot be private.`);
    if (json.publishConfig?.access !== 'public') {
      problems.push(
        `${dir}/package.json: publishConfig.access must be "public" (scoped packages are published restricted otherwise).`,
      );
    }
    if (json.publishConfig?.registry) {
      problems.push(
        `${dir}/package.json: publishConfig.registry would override npm_config_registry; the registry is chosen at release time.`,
      );
    }
    for (const file of ['README.md', 'CHANGELOG.md']) {
      if (!existsSync(join(root, dir, file))) problems.push(`${dir}/${file} is missing.`);
    }
    if (!json.files?.includes('CHANGELOG.md')) {
      problems.push(
        `${dir}/package.json: "files" must list CHANGELOG.md so that the changelog ships.`,
      );
    }
  }
  for (const { dir, json } of workspaces) {
    if (PUBLISHABLE.includes(json.name)) continue;
    if (json.private !== true) {
      problems.push(
        `${dir}/package.json: ${json.name} is not one of the published packages, so it must be "private": true.`,
      );
    }
    // Changesets does not version private workspaces, so it never rewrites their ranges: a pinned
    // range would be left behind by the next release and npm would look for it in the registry.
    for (const field of ['dependencies', 'devDependencies']) {
      for (const [dependency, range] of Object.entries(json[field] ?? {})) {
        if (!PUBLISHABLE.includes(dependency)) continue;
        if (!semver.satisfies(planned[dependency], range)) {
          problems.push(
            `${dir}/package.json: ${field}.${dependency} is "${range}", which ${dependency} ${planned[dependency]} does not satisfy; a private workspace depends on its published siblings with "*".`,
          );
        }
      }
    }
  }

  // 5. The record of the last release is consistent.
  if (!released) {
    problems.push(
      'released/versions.json is missing: it records the versions of the last release.',
    );
  } else {
    const bundle = join(root, 'released', 'openapi.yaml');
    const releasedInfo = existsSync(bundle)
      ? parse(readFileSync(bundle, 'utf8')).info.version
      : undefined;
    if (releasedInfo !== released[CONTRACT_PACKAGE]) {
      problems.push(
        `released/openapi.yaml has info.version ${releasedInfo}, but released/versions.json says ${CONTRACT_PACKAGE} ${released[CONTRACT_PACKAGE]}.`,
      );
    }
  }

  if (release) {
    if (changesets.length > 0) {
      problems.push(
        `${changesets.length} changeset(s) are pending (${changesets.join(', ')}): run npm run release:version first.`,
      );
    }
    for (const name of PUBLISHABLE) {
      if (released && released[name] !== current[name]) {
        problems.push(
          `released/versions.json says ${name} ${released[name]}, but its package.json says ${current[name]}: npm run release:version writes both.`,
        );
      }
    }
  }
  return problems;
}

/**
 * With --release: the contract about to be published (the types package's bundle, built) is
 * the one released/ records, so the next gate compares with what was really published.
 */
function releasedBundleProblems(root) {
  const shipped = join(root, 'packages', 'types', 'openapi.yaml');
  if (!existsSync(shipped)) return [`${shipped} is missing: build first (npm run build).`];
  const recorded = readFileSync(join(root, 'released', 'openapi.yaml'), 'utf8');
  if (readFileSync(shipped, 'utf8') === recorded) return [];
  return [
    'packages/types/openapi.yaml (the contract about to be published) differs from released/openapi.yaml. ' +
      `If the contract changed since the last release, add a changeset for ${CONTRACT_PACKAGE} and run npm run release:version; ` +
      'if released/ is stale, npm run release:version rewrites it.',
  ];
}

if (options.json) {
  const versions = await plannedVersions(root);
  const released = readReleasedVersions(root);
  // Whether the pending changesets already plan a release outside the caret range of the last
  // one: the acknowledged breaking change the client's compatibility test then lets through.
  const breaking = Object.fromEntries(
    PUBLISHABLE.map((name) => [
      name,
      // A package never released has no range to leave.
      released?.[name] ? !semver.satisfies(versions.planned[name], `^${released[name]}`) : false,
    ]),
  );
  console.log(
    JSON.stringify(
      { ...versions, infoVersion: readInfoVersion(root), released, breaking },
      null,
      2,
    ),
  );
} else {
  const problems = await releaseProblems(root, { release: options.release });
  if (options.release) problems.push(...releasedBundleProblems(root));
  if (problems.length > 0) {
    console.error(`✖ release:check found ${problems.length} problem(s):`);
    for (const problem of problems) console.error(`  - ${problem}`);
    process.exit(1);
  }
  console.log(
    `✔ release:check: contract ${readInfoVersion(root)} = ${CONTRACT_PACKAGE} (planned); sibling ranges exact; only ${PUBLISHABLE.join(', ')} are public.`,
  );
}
