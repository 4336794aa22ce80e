#!/usr/bin/env node
// @ts-check
// The breaking-change gate, `npm run contract:diff` (part of `npm run lint`, so of CI).
//
// Compares the working spec (openapi/openapi.yaml, the multi-file source) with the contract of the
// last release (released/openapi.yaml, the bundle that release shipped) using Redocly's `diff`,
// prints every breaking and compatible change in words with the file and line it comes from, and
// exits 1 when a change breaks clients unless info.version carries a major bump over the release,
// and when info.version moved but the contract did not (its version moves for contract changes
// only).
//
// Redocly's `diff` is experimental: @redocly/cli is pinned exactly (openapi/package.json) and
// openapi/test/contract-diff.system.test.ts runs this script on edited copies of the spec, case by case
// (request/response polarity, enums, constraints, nullability, statuses), so an upgrade that
// changes a verdict fails a test. Its JSON report (`reportVersion` 1) is read instead of its
// terminal output so that the artefacts of comparing a bundle with a multi-file source can be
// left out, and a server that only moved in the list told from one removed, while every location
// still points at the source file to edit (scripts/lib/contract-changes.mjs, which the docs'
// changelog page reads the same way).
//
// Usage: node scripts/contract-diff.mjs [--base <bundle>] [--revision <openapi.yaml>] [--verbose]
import { relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import semver from 'semver';
import {
  ContractDiffError,
  contractChanges,
  redoclyVersion,
  root,
  scopeOf,
} from './lib/contract-changes.mjs';

const { values: options } = parseArgs({
  options: {
    base: { type: 'string', default: resolve(root, 'released', 'openapi.yaml') },
    revision: { type: 'string', default: resolve(root, 'openapi', 'openapi.yaml') },
    verbose: { type: 'boolean', default: false },
  },
});

const IMPACT_WORDS = {
  major: 'BREAKING  ',
  minor: 'compatible',
  patch: 'editorial ',
};
const MARKS = { major: '✖', minor: '✔', patch: '·' };

/** @param {import('./lib/contract-changes.mjs').Change} change */
function describe(change) {
  const { rest } = scopeOf(change.path);
  const where = rest.join('/') || '(the whole item)';
  const property = change.kind === 'modified' && change.property ? ` · ${change.property}` : '';
  const moved = change.movedFrom ? ` (from ${scopeOf(change.movedFrom).rest.join('/')})` : '';
  const lines = [`${change.kind} ${where}${property}${moved}`];
  for (const verdict of change.verdicts) lines.push(`    ${verdict.message} [${verdict.ruleId}]`);
  const location = change.revision ?? change.base;
  if (location) {
    const file = relative(root, resolve(root, location.file));
    lines.push(`    ${change.revision ? 'at' : 'was at'} ${file}:${location.line}:${location.col}`);
  }
  return lines;
}

/**
 * Whether the two documents are one contract but for `info.version`: compared bundled, so that
 * what the diff leaves out as artefacts (the description, code samples in files) counts too.
 *
 * @param {import('./lib/contract-changes.mjs').ComparedDocuments} documents
 */
function sameContract(documents) {
  /** @param {unknown} document */
  const withoutVersion = (document) => {
    const copy = /** @type {{ info: { version?: string } }} */ (structuredClone(document));
    delete copy.info.version;
    return JSON.stringify(copy);
  };
  return withoutVersion(documents.base()) === withoutVersion(documents.revision());
}

/** @param {string} message @returns {never} */
function fail(message) {
  console.error(`contract:diff: ${message}`);
  process.exit(2);
}

/** @type {ReturnType<typeof contractChanges>} */
let compared;
try {
  compared = contractChanges(options.base, options.revision);
} catch (error) {
  if (!(error instanceof ContractDiffError)) throw error;
  fail(error.message);
}
const { changes, versions } = compared;
const count = { major: 0, minor: 0, patch: 0 };
for (const change of changes) count[change.impact] += 1;

const baseVersion = versions.base;
const revisionVersion = versions.revision;
const baseFile = relative(root, resolve(options.base));
const revisionFile = relative(root, resolve(options.revision));
console.log(
  `contract:diff (redocly diff ${redoclyVersion}): ${revisionFile} (info.version ${revisionVersion}) against the last release, ${baseFile} (${baseVersion})`,
);

const shown = changes.filter((change) => options.verbose || change.impact !== 'patch');
const order = { major: 0, minor: 1, patch: 2 };
/** @type {Map<string, import('./lib/contract-changes.mjs').Change[]>} */
const byScope = new Map();
for (const change of shown.sort((a, b) => order[a.impact] - order[b.impact])) {
  const { scope } = scopeOf(change.path);
  if (!byScope.has(scope)) byScope.set(scope, []);
  byScope.get(scope)?.push(change);
}
for (const [scope, scoped] of byScope) {
  console.log(`\n${scope}`);
  for (const change of scoped) {
    const [first, ...more] = describe(change);
    console.log(`  ${MARKS[change.impact]} ${IMPACT_WORDS[change.impact]}  ${first}`);
    for (const line of more) console.log(`  ${line}`);
  }
}
const hiddenPatches = changes.length - shown.length;
console.log(
  `\n${count.major} breaking, ${count.minor} compatible, ${count.patch} editorial change${count.patch === 1 ? '' : 's'}${hiddenPatches > 0 ? ` (--verbose lists the ${hiddenPatches} editorial ones: descriptions, examples, samples)` : ''}.`,
);

if (!semver.valid(baseVersion) || !semver.valid(revisionVersion)) {
  fail(
    `info.version must be a semantic version (x.y.z): released ${baseVersion}, working ${revisionVersion}.`,
  );
}
if (semver.lt(revisionVersion, baseVersion)) {
  console.error(
    `✖ info.version ${revisionVersion} is lower than the released ${baseVersion}: versions only go up.`,
  );
  process.exit(1);
}
// The contract's version moves for contract changes only (README, "Versions"): a new version
// of a contract that is the released one, but for its version, is a changeset of
// @institution-api/types for code, which belongs to the package that holds the code.
if (revisionVersion !== baseVersion && sameContract(compared.documents)) {
  console.error(
    `✖ info.version is ${revisionVersion}, but the contract is the released ${baseVersion}'s: the contract's version moves for contract changes only.\n` +
      `  Set info.version back to ${baseVersion}, and name the package whose code changed in the changeset instead of @institution-api/types\n` +
      '  (the spec toolkit, the rules and the model are @institution-api/runtime; the client, the mock, the suite and the CLI have their own).',
  );
  process.exit(1);
}
const majorBump = semver.major(revisionVersion) > semver.major(baseVersion);
if (count.major > 0 && !majorBump) {
  const next = semver.inc(baseVersion, 'major');
  console.error(
    `✖ ${count.major} breaking change${count.major === 1 ? '' : 's'} since the release of ${baseVersion}, but info.version is ${revisionVersion}.\n` +
      `  Clients written against ${baseVersion} break. Undo the change, or make it a new major version of the contract:\n` +
      `  set info.version to ${next} in openapi/openapi.yaml and add a changeset (npx changeset) with a major bump of @institution-api/types.`,
  );
  process.exit(1);
}
if (count.major > 0) {
  console.log(
    `✔ ${count.major} breaking change${count.major === 1 ? '' : 's'}, accepted: info.version ${revisionVersion} is a major bump over the released ${baseVersion}.`,
  );
} else {
  console.log(`✔ no breaking change since the release of ${baseVersion}.`);
}
