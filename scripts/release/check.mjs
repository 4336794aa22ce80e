#!/usr/bin/env node
// @ts-check
// The release rules, checked (`npm run release:check`, part of `npm run lint`, so of CI; and the
// first step of `npm run release:version` and `npm run release`):
//
// 1. The contract's version and the types package's version move together: info.version of
//    openapi/openapi.yaml equals the version @institution-api/types will have once the pending
//    changesets are applied (its version now, when none names it). A breaking contract change is a
//    major version of both, and only a contract change moves it (scripts/contract-diff.mjs
//    enforces both against the last release's contract).
// 2. A major release of the types is a breaking release of the client, which re-exports them.
// 3. Sibling dependencies of the published packages are exact and equal the siblings' versions.
// 4. The published packages are public, with a README.md and a CHANGELOG.md that they ship, and
//    what a registry and a stranger read of them: `description`, `license` (the repository's,
//    with its LICENSE file), `repository` (the root's, with the package's `directory`),
//    `engines.node` (the root's) and `files`; every other workspace is private, so nothing else
//    can be published, and depends on the published ones with a range their next versions
//    satisfy ("*").
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

/** @typedef {import('./workspace.mjs').Workspace} Workspace */
/** @typedef {import('./workspace.mjs').Manifest} Manifest */
/**
 * A checkout as the rules read it: its workspaces, the versions now, planned by the pending
 * changesets and last released, and the contract's info.version.
 *
 * @typedef {{
 *   root: string;
 *   rootManifest: Manifest;
 *   workspaces: Workspace[];
 *   byName: Map<string, Workspace>;
 *   current: Record<string, string>;
 *   planned: Record<string, string>;
 *   changesets: string[];
 *   infoVersion: string;
 *   released: Record<string, string> | undefined;
 * }} Checkout
 */

const { values: options } = parseArgs({
  options: {
    root: { type: 'string', default: repositoryRoot },
    release: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  },
});
const root = resolve(options.root);

/** The dependency fields whose sibling ranges must be exact. */
const RUNTIME_FIELDS = /** @type {const} */ ([
  'dependencies',
  'peerDependencies',
  'optionalDependencies',
]);

/**
 * The checkout at `root`, and a problem when Changesets cannot plan its next release.
 *
 * @param {string} root
 * @returns {Promise<{ checkout: Checkout; problems: string[] }>}
 */
async function readCheckout(root) {
  const problems = [];
  const workspaces = readWorkspaces(root);
  const byName = new Map(workspaces.map((workspace) => [workspace.json.name, workspace]));
  let plan;
  try {
    plan = await plannedVersions(root);
  } catch (error) {
    // Changesets refuses some trees outright (a public workspace depending on a private one).
    problems.push(
      `Changesets cannot plan the next release: ${/** @type {Error} */ (error).message}`,
    );
    const current = Object.fromEntries(
      workspaces
        .map(({ json }) => [json.name, json.version])
        .filter(([name]) => PUBLISHABLE.includes(String(name))),
    );
    plan = { current, planned: current, changesets: [] };
  }
  const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const checkout = {
    root,
    rootManifest,
    workspaces,
    byName,
    ...plan,
    infoVersion: readInfoVersion(root),
    released: readReleasedVersions(root),
  };
  return { checkout, problems };
}

/** 1. info.version is the version of the types package that will carry it. @param {Checkout} c */
function contractVersionProblems({ current, planned, infoVersion }) {
  const typesPlanned = planned[CONTRACT_PACKAGE];
  if (infoVersion === typesPlanned) return [];
  const pending =
    typesPlanned === current[CONTRACT_PACKAGE]
      ? `no pending changeset names ${CONTRACT_PACKAGE}, which is ${typesPlanned}`
      : `the pending changesets take ${CONTRACT_PACKAGE} from ${current[CONTRACT_PACKAGE]} to ${typesPlanned}`;
  return [
    `openapi/openapi.yaml: info.version is ${infoVersion}, but ${pending}. ` +
      `The contract's version is the types package's version: set info.version to ${typesPlanned}, ` +
      `or add a changeset (npx changeset) whose bump of ${CONTRACT_PACKAGE} gives ${infoVersion}.`,
  ];
}

/** 2. The client re-exports the types: their breaking release is the client's too. @param {Checkout} c */
function breakingClientProblems({ planned, released }) {
  const typesPlanned = planned[CONTRACT_PACKAGE] ?? '0.0.0';
  const clientPlanned = planned[CLIENT_PACKAGE] ?? '0.0.0';
  if (!released?.[CONTRACT_PACKAGE] || !released[CLIENT_PACKAGE]) return [];
  const typesBreaks = semver.major(typesPlanned) > semver.major(released[CONTRACT_PACKAGE]);
  const clientBreaks = !semver.satisfies(clientPlanned, `^${released[CLIENT_PACKAGE]}`);
  if (!typesBreaks || clientBreaks) return [];
  return [
    `${CONTRACT_PACKAGE} goes to ${typesPlanned}, a major release, but ${CLIENT_PACKAGE} only to ${clientPlanned}: ` +
      `the client re-exports the types, so add a changeset with a breaking bump of ${CLIENT_PACKAGE} ` +
      `(minor while it is 0.x, major from 1.0).`,
  ];
}

/** 3. Sibling ranges are exact and equal the siblings' versions. @param {Checkout} c @param {Workspace} workspace */
function siblingRangeProblems({ byName }, { dir, json }) {
  const problems = [];
  for (const field of RUNTIME_FIELDS) {
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
  return problems;
}

/** 4. Public, documented, with a changelog that ships. @param {Checkout} c @param {Workspace} workspace */
function publicationProblems({ root }, { dir, json }) {
  const problems = [];
  if (json.private)
    problems.push(`${dir}/package.json: ${json.name} is published, so it cannot be private.`);
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
  return problems;
}

/**
 * 4. What a registry shows and a stranger needs: a description, the repository's license and
 * address (with the package's folder), the Node versions it runs on, and the files it ships.
 *
 * @param {Checkout} c @param {Workspace} workspace
 */
function metadataProblems({ rootManifest }, { dir, json }) {
  const problems = [];
  const at = `${dir}/package.json`;
  if (!json.description?.trim()) problems.push(`${at}: "description" is missing.`);
  if (json.license !== rootManifest.license) {
    problems.push(
      `${at}: "license" is ${json.license}, the repository's is ${rootManifest.license} (LICENSE).`,
    );
  }
  const wanted = { type: 'git', url: rootManifest.repository?.url, directory: dir };
  const { type, url, directory } = json.repository ?? {};
  if (type !== wanted.type || url !== wanted.url || directory !== wanted.directory) {
    problems.push(
      `${at}: "repository" must be ${JSON.stringify(wanted)} (the root's, with the package's folder).`,
    );
  }
  if (json.engines?.node !== rootManifest.engines?.node) {
    problems.push(`${at}: engines.node must be the repository's, "${rootManifest.engines?.node}".`);
  }
  if (!json.files?.length) problems.push(`${at}: "files" must list what the package ships.`);
  return problems;
}

/**
 * 4. Every other workspace is private, and depends on the published ones with a range their next
 * versions satisfy: Changesets does not version private workspaces, so it never rewrites their
 * ranges, and a pinned one would be left behind by the next release.
 *
 * @param {Checkout} c @param {Workspace} workspace
 */
function privateWorkspaceProblems({ planned }, { dir, json }) {
  const problems = [];
  if (json.private !== true) {
    problems.push(
      `${dir}/package.json: ${json.name} is not one of the published packages, so it must be "private": true.`,
    );
  }
  for (const field of /** @type {const} */ (['dependencies', 'devDependencies'])) {
    for (const [dependency, range] of Object.entries(json[field] ?? {})) {
      const next = planned[dependency];
      if (next === undefined || semver.satisfies(next, range)) continue;
      problems.push(
        `${dir}/package.json: ${field}.${dependency} is "${range}", which ${dependency} ${next} does not satisfy; a private workspace depends on its published siblings with "*".`,
      );
    }
  }
  return problems;
}

/** 5. The record of the last release is consistent. @param {Checkout} c */
function releasedRecordProblems({ root, released }) {
  if (!released)
    return ['released/versions.json is missing: it records the versions of the last release.'];
  const bundle = join(root, 'released', 'openapi.yaml');
  const releasedInfo = existsSync(bundle)
    ? parse(readFileSync(bundle, 'utf8')).info.version
    : undefined;
  if (releasedInfo === released[CONTRACT_PACKAGE]) return [];
  return [
    `released/openapi.yaml has info.version ${releasedInfo}, but released/versions.json says ${CONTRACT_PACKAGE} ${released[CONTRACT_PACKAGE]}.`,
  ];
}

/**
 * With --release: nothing pending, released/ records exactly what is published, and the contract
 * about to be published (the types package's bundle, built) is the one released/ records, so the
 * next gate compares with what was really published.
 *
 * @param {Checkout} c
 */
function publishingProblems({ root, changesets, released, current }) {
  const problems = [];
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
  const shipped = join(root, 'packages', 'types', 'openapi.yaml');
  if (!existsSync(shipped))
    return [...problems, `${shipped} is missing: build first (npm run build).`];
  const recorded = readFileSync(join(root, 'released', 'openapi.yaml'), 'utf8');
  if (readFileSync(shipped, 'utf8') !== recorded) {
    problems.push(
      'packages/types/openapi.yaml (the contract about to be published) differs from released/openapi.yaml. ' +
        `If the contract changed since the last release, add a changeset for ${CONTRACT_PACKAGE} and run npm run release:version; ` +
        'if released/ is stale, npm run release:version rewrites it.',
    );
  }
  return problems;
}

/**
 * Every broken rule of the checkout at `root`, as sentences naming the file and the fix.
 *
 * @param {string} root @param {{ release: boolean }} mode
 */
async function releaseProblems(root, { release }) {
  const { checkout, problems } = await readCheckout(root);
  problems.push(...contractVersionProblems(checkout), ...breakingClientProblems(checkout));
  if (!existsSync(join(root, 'LICENSE'))) problems.push('LICENSE is missing at the root.');
  for (const name of PUBLISHABLE) {
    const workspace = checkout.byName.get(name);
    if (!workspace) {
      problems.push(`${name} is not a workspace of ${root}.`);
      continue;
    }
    problems.push(
      ...siblingRangeProblems(checkout, workspace),
      ...publicationProblems(checkout, workspace),
      ...metadataProblems(checkout, workspace),
    );
  }
  for (const workspace of checkout.workspaces) {
    if (!PUBLISHABLE.includes(workspace.json.name)) {
      problems.push(...privateWorkspaceProblems(checkout, workspace));
    }
  }
  problems.push(...releasedRecordProblems(checkout));
  if (release) problems.push(...publishingProblems(checkout));
  return problems;
}

if (options.json) {
  const versions = await plannedVersions(root);
  const released = readReleasedVersions(root);
  // Whether the pending changesets already plan a release outside the caret range of the last
  // one: the acknowledged breaking change the client's compatibility test then lets through.
  const breaking = Object.fromEntries(
    PUBLISHABLE.map((name) => {
      const last = released?.[name];
      // A package never released has no range to leave.
      return [name, last ? !semver.satisfies(versions.planned[name] ?? last, `^${last}`) : false];
    }),
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
  if (problems.length > 0) {
    console.error(`✖ release:check found ${problems.length} problem(s):`);
    for (const problem of problems) console.error(`  - ${problem}`);
    process.exit(1);
  }
  console.log(
    `✔ release:check: contract ${readInfoVersion(root)} = ${CONTRACT_PACKAGE} (planned); sibling ranges exact; only ${PUBLISHABLE.join(', ')} are public, each with its license, repository, description, engines and files.`,
  );
}
