#!/usr/bin/env node
// The breaking-change gate, `npm run contract:diff` (part of `npm run lint`, so of CI).
//
// Compares the working spec (openapi/openapi.yaml, the multi-file source) with the contract of the
// last release (released/openapi.yaml, the bundle that release shipped) using Redocly's `diff`,
// prints every breaking and compatible change in words with the file and line it comes from, and
// exits 1 when a change breaks clients unless info.version carries a major bump over the release.
//
// Redocly's `diff` is experimental: @redocly/cli is pinned exactly (openapi/package.json) and
// openapi/test/contract-diff.test.ts runs this script on edited copies of the spec, case by case
// (request/response polarity, enums, constraints, nullability, statuses), so an upgrade that
// changes a verdict fails a test. Its JSON report (`reportVersion` 1) is read instead of its
// terminal output so that the two artefacts of comparing a bundle with a multi-file source can be
// left out (see isBundlingArtefact) while every location still points at the source file to edit.
//
// Usage: node scripts/contract-diff.mjs [--base <bundle>] [--revision <openapi.yaml>] [--verbose]
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import semver from 'semver';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values: options } = parseArgs({
  options: {
    base: { type: 'string', default: join(root, 'released', 'openapi.yaml') },
    revision: { type: 'string', default: join(root, 'openapi', 'openapi.yaml') },
    verbose: { type: 'boolean', default: false },
  },
});

// The Redocly CLI the openapi workspace pins, not whichever one happens to be on PATH.
const requireFromOpenapi = createRequire(join(root, 'openapi', 'package.json'));
const redoclyPackage = requireFromOpenapi.resolve('@redocly/cli/package.json');
const redoclyVersion = requireFromOpenapi('@redocly/cli/package.json').version;
const redocly = join(dirname(redoclyPackage), 'bin', 'cli.js');
const diffConfig = join(root, 'scripts', 'contract-diff.redocly.yaml');

const IMPACT_WORDS = {
  major: 'BREAKING  ',
  minor: 'compatible',
  patch: 'editorial ',
};
const MARKS = { major: '✖', minor: '✔', patch: '·' };

/** Runs `redocly diff` and returns its JSON report (reportVersion 1). */
function diffReport(base, revision) {
  const result = spawnSync(
    process.execPath,
    [
      redocly,
      'diff',
      base,
      revision,
      '--config',
      diffConfig,
      '--format',
      'json',
      '--fail-on',
      'none',
      '--lint-config',
      'off',
    ],
    {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off' },
      maxBuffer: 256 * 1024 * 1024,
    },
  );
  let report;
  try {
    report = JSON.parse(result.stdout);
  } catch {
    fail(
      `redocly diff ${redoclyVersion} could not compare the two documents (exit ${result.status}):\n${result.stderr.trim()}`,
    );
  }
  // Both warnings mean the verdicts cannot be trusted: no rule ran, or part of a document did not
  // resolve, so Redocly could not tell requests from responses there.
  if (/No diff rules are on|leave parts of the descriptions unresolved/.test(result.stderr)) {
    fail(`redocly diff ${redoclyVersion} cannot judge this diff:\n${result.stderr.trim()}`);
  }
  if (report.reportVersion !== '1') {
    fail(
      `redocly diff ${redoclyVersion} wrote a report of version ${report.reportVersion}, this script reads version 1: check scripts/contract-diff.mjs against the new format.`,
    );
  }
  return report;
}

/**
 * The two differences that come from comparing a bundle (all components gathered under
 * `components`, `info.description` inlined) with the multi-file source (components reached only
 * through `$ref`s from the paths, `info.description` a `$ref` to info-description.md). Neither is
 * a change of the contract: a component removed from the source shows up where it is used, under
 * `paths`, and a description is never breaking.
 */
function isBundlingArtefact(change) {
  const sectionRemoved =
    change.kind === 'removed' &&
    change.verdicts.length === 0 &&
    /^#\/components\/[^/]+$/.test(change.path) &&
    change.path !== '#/components/securitySchemes';
  const infoDescription =
    change.path === '#/info/description' ||
    (change.path === '#/info' && change.property === 'description');
  return sectionRemoved || infoDescription;
}

/**
 * The third artefact: a code sample the source takes from a file (`source: { $ref: <file> }`,
 * openapi/code-samples/), which `redocly diff` resolves only for YAML and JSON targets, shows as
 * removed from the bundle and added to the source at the same place. Returns the changes with
 * each such pair dropped when the file's text is the bundle's sample, and rated editorial (as a
 * changed inline sample is) when it is not.
 */
function withCodeSamplesResolved(changes) {
  const removed = new Map(
    changes
      .filter((change) => change.kind === 'removed' && change.typeName === 'XCodeSample')
      .map((change) => [change.path, change]),
  );
  const paired = new Map();
  for (const change of changes) {
    const sample = change.kind === 'added' ? change.revision?.value : undefined;
    const ref = sample?.source?.$ref;
    const before = removed.get(change.path)?.base?.value;
    if (change.typeName !== 'XCodeSample' || typeof ref !== 'string' || !before) continue;
    const text = readFileSync(resolve(root, dirname(change.revision.file), ref), 'utf8');
    const same =
      before.lang === sample.lang && before.label === sample.label && before.source === text;
    paired.set(change.path, same);
  }
  return changes.flatMap((change) => {
    if (!paired.has(change.path) || change.typeName !== 'XCodeSample') return [change];
    if (paired.get(change.path) || change.kind === 'removed') return [];
    return [{ ...change, kind: 'modified', impact: 'patch' }];
  });
}

const decodePointer = (segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~');

/** `POST /api/v1/external/users` and `requestBody/content/...` from a JSON pointer. */
function scopeOf(pointer) {
  const segments = pointer.replace(/^#\/?/, '').split('/').map(decodePointer);
  if (segments[0] === 'paths' && segments.length >= 3) {
    return { scope: `${segments[2].toUpperCase()} ${segments[1]}`, rest: segments.slice(3) };
  }
  if (segments[0] === 'paths' && segments.length === 2) {
    return { scope: `path ${segments[1]}`, rest: [] };
  }
  return { scope: segments[0] || 'document', rest: segments.slice(1) };
}

function describe(change) {
  const { rest } = scopeOf(change.path);
  const where = rest.join('/') || '(the whole item)';
  const property = change.kind === 'modified' && change.property ? ` · ${change.property}` : '';
  const lines = [`${change.kind} ${where}${property}`];
  for (const verdict of change.verdicts) lines.push(`    ${verdict.message} [${verdict.ruleId}]`);
  const location = change.revision ?? change.base;
  if (location) {
    const file = relative(root, resolve(root, location.file));
    lines.push(`    ${change.revision ? 'at' : 'was at'} ${file}:${location.line}:${location.col}`);
  }
  return lines;
}

function fail(message) {
  console.error(`contract:diff: ${message}`);
  process.exit(2);
}

const report = diffReport(options.base, options.revision);
const changes = withCodeSamplesResolved(report.changes).filter(
  (change) => !isBundlingArtefact(change),
);
const count = { major: 0, minor: 0, patch: 0 };
for (const change of changes) count[change.impact] += 1;

const baseVersion = report.infoVersions.base;
const revisionVersion = report.infoVersions.revision;
const baseFile = relative(root, resolve(options.base));
const revisionFile = relative(root, resolve(options.revision));
console.log(
  `contract:diff (redocly diff ${redoclyVersion}): ${revisionFile} (info.version ${revisionVersion}) against the last release, ${baseFile} (${baseVersion})`,
);

const shown = changes.filter((change) => options.verbose || change.impact !== 'patch');
const order = { major: 0, minor: 1, patch: 2 };
const byScope = new Map();
for (const change of shown.sort((a, b) => order[a.impact] - order[b.impact])) {
  const { scope } = scopeOf(change.path);
  if (!byScope.has(scope)) byScope.set(scope, []);
  byScope.get(scope).push(change);
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
