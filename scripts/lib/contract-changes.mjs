// The contract's changes between two documents, as the breaking-change gate
// (scripts/contract-diff.mjs) and the docs' changelog page (apps/docs) both read them: Redocly's
// `diff` (the @redocly/cli the openapi workspace pins), its JSON report (`reportVersion` 1), and
// the artefacts of comparing a bundle with the multi-file source left out or paired up, so that
// every change left is one of the contract and every location points at the file to edit.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root directory. */
export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

// The Redocly CLI the openapi workspace pins, not whichever one happens to be on PATH.
const requireFromOpenapi = createRequire(join(root, 'openapi', 'package.json'));
const redoclyPackage = requireFromOpenapi.resolve('@redocly/cli/package.json');
/** The version of Redocly's CLI whose `diff` rates the changes. */
export const redoclyVersion = requireFromOpenapi('@redocly/cli/package.json').version;
const redocly = join(dirname(redoclyPackage), 'bin', 'cli.js');
const diffConfig = join(root, 'scripts', 'contract-diff.redocly.yaml');

/** Why the two documents could not be compared, or the comparison cannot be trusted. */
export class ContractDiffError extends Error {}

/**
 * Runs `redocly diff` and returns its JSON report (reportVersion 1).
 *
 * @param {string} base the earlier document (a release's bundle)
 * @param {string} revision the later one (a bundle, or the multi-file source's root)
 * @throws {ContractDiffError} when Redocly cannot compare them or warns that its verdicts cannot be
 *   trusted, or writes a report of another version
 */
export function diffReport(base, revision) {
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
    throw new ContractDiffError(
      `redocly diff ${redoclyVersion} could not compare the two documents (exit ${result.status}):\n${result.stderr.trim()}`,
    );
  }
  // Both warnings mean the verdicts cannot be trusted: no rule ran, or part of a document did not
  // resolve, so Redocly could not tell requests from responses there.
  if (/No diff rules are on|leave parts of the descriptions unresolved/.test(result.stderr)) {
    throw new ContractDiffError(
      `redocly diff ${redoclyVersion} cannot judge this diff:\n${result.stderr.trim()}`,
    );
  }
  if (report.reportVersion !== '1') {
    throw new ContractDiffError(
      `redocly diff ${redoclyVersion} wrote a report of version ${report.reportVersion}, this script reads version 1: check scripts/lib/contract-changes.mjs against the new format.`,
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

/**
 * `redocly diff` tells a server by all of its fields: a server whose description changed, or
 * that is now listed at another position with another description, shows as removed (its
 * `server-removed` verdict breaking) and another added. A client that calls that URL still can,
 * so each such pair is one change: `modified` in place (editorial when only its description or
 * `x-` fields changed), or `moved`, which is compatible, since the first server is what tools
 * take as their default base URL. A server whose URL is no longer listed stays removed, and
 * breaking.
 */
function withServersPaired(changes) {
  const serverUrl = (side) => side?.value?.url;
  const isServer = (change, kind) =>
    change.typeName === 'Server' && change.kind === kind && /^#\/servers\/\d+$/.test(change.path);
  const added = changes.filter((change) => isServer(change, 'added'));
  const pairs = new Map();
  for (const change of changes.filter((each) => isServer(each, 'removed'))) {
    const to = added.find(
      (each) => serverUrl(each.revision) === serverUrl(change.base) && !pairs.has(each),
    );
    if (to) pairs.set(to, change);
  }
  const editorialOnly = (before, after) => {
    const substantive = (server) =>
      JSON.stringify(
        Object.entries(server)
          .filter(([key]) => key !== 'description' && !key.startsWith('x-'))
          .sort(([a], [b]) => a.localeCompare(b)),
      );
    return substantive(before) === substantive(after);
  };
  const removed = new Set(pairs.values());
  return changes.flatMap((change) => {
    if (removed.has(change)) return [];
    const before = pairs.get(change);
    if (!before) return [change];
    const moved = before.path !== change.path;
    const impact =
      moved || !editorialOnly(before.base.value, change.revision.value) ? 'minor' : 'patch';
    return [
      {
        ...change,
        kind: moved ? 'moved' : 'modified',
        impact,
        verdicts: [],
        base: before.base,
        ...(moved ? { movedFrom: before.path } : {}),
      },
    ];
  });
}

/**
 * The contract's changes between `base` and `revision`: Redocly's report with the artefacts of
 * comparing a bundle with the multi-file source left out ({@link isBundlingArtefact}, code
 * samples taken from files) and servers still listed paired up. Each change keeps Redocly's
 * fields: `path` (a JSON pointer into the revision), `kind` (`added`, `removed`, `modified`, or
 * `moved` for a server), `impact` (`major` breaks clients, `minor` is a compatible addition,
 * `patch` editorial), `verdicts` (the diff rules' messages), `property`, and `base`/`revision`
 * (file, line, column, value).
 *
 * @param {string} base the earlier document
 * @param {string} revision the later one
 * @returns {{ versions: { base: string; revision: string }; changes: object[] }}
 */
export function contractChanges(base, revision) {
  const report = diffReport(base, revision);
  const changes = withServersPaired(withCodeSamplesResolved(report.changes)).filter(
    (change) => !isBundlingArtefact(change),
  );
  return { versions: report.infoVersions, changes };
}

const decodePointer = (segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~');

/**
 * Where a change is: `POST /api/v1/external/users` and the rest of the pointer below the
 * operation (`requestBody/content/...`), or the document's section (`servers`, `info`, ...).
 *
 * @param {string} pointer a change's `path`
 * @returns {{ scope: string; rest: string[]; method?: string; path?: string }}
 */
export function scopeOf(pointer) {
  const segments = pointer.replace(/^#\/?/, '').split('/').map(decodePointer);
  if (segments[0] === 'paths' && segments.length >= 3) {
    return {
      scope: `${segments[2].toUpperCase()} ${segments[1]}`,
      method: segments[2].toUpperCase(),
      path: segments[1],
      rest: segments.slice(3),
    };
  }
  if (segments[0] === 'paths' && segments.length === 2) {
    return { scope: `path ${segments[1]}`, path: segments[1], rest: [] };
  }
  return { scope: segments[0] || 'document', rest: segments.slice(1) };
}
