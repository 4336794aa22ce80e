// @ts-check
// The contract's changes between two documents, as the breaking-change gate
// (scripts/contract-diff.mjs) and the docs' changelog page (apps/docs) both read them: Redocly's
// `diff` (the @redocly/cli the openapi workspace pins), its JSON report (`reportVersion` 1), and
// the artefacts of comparing a bundle with the multi-file source left out or paired up, so that
// every change left is one of the contract and every location points at the file to edit.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  dereference,
  isObject,
  pointerOf,
  pointerSegments,
  resolveLocalRef,
} from '@institution-api/runtime/spec';

/** The repository's root directory. */
export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

// The Redocly CLI the openapi workspace pins, not whichever one happens to be on PATH.
const requireFromOpenapi = createRequire(join(root, 'openapi', 'package.json'));
const redoclyPackage = requireFromOpenapi.resolve('@redocly/cli/package.json');
/** The version of Redocly's CLI whose `diff` rates the changes. */
export const redoclyVersion = requireFromOpenapi('@redocly/cli/package.json').version;
const redocly = join(dirname(redoclyPackage), 'bin', 'cli.js');
const diffConfig = join(root, 'scripts', 'contract-diff.redocly.yaml');

/**
 * One side of a change: where it is in the earlier (`base`) or later (`revision`) document.
 *
 * @typedef {{ file: string; pointer?: string; line: number; col: number; value?: any }} Side
 */
/**
 * A change of Redocly's report (reportVersion 1), as {@link contractChanges} returns it.
 *
 * @typedef {{
 *   path: string;
 *   typeName?: string;
 *   kind: string;
 *   impact: 'major' | 'minor' | 'patch';
 *   verdicts: { ruleId: string; message: string }[];
 *   property?: string;
 *   base?: Side;
 *   revision?: Side;
 *   movedFrom?: string;
 * }} Change
 */
/**
 * A change in words ({@link changeInWords}).
 *
 * @typedef {{ area: string; subject: string; action: string; impact: string; details: string[] }} ChangeInWords
 */

/** Why the two documents could not be compared, or the comparison cannot be trusted. */
export class ContractDiffError extends Error {}

/**
 * Runs `redocly diff` and returns its JSON report (reportVersion 1).
 *
 * @param {string} base the earlier document (a release's bundle)
 * @param {string} revision the later one (a bundle, or the multi-file source's root)
 * @returns {{ infoVersions: { base: string; revision: string }; changes: Change[] }}
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
 * The two documents of a comparison, each as one bundle (every `$ref` local), made when first
 * read: a change's `path` is a JSON Pointer into them, which the spec toolkit follows.
 *
 * @typedef {{ base: () => unknown; revision: () => unknown }} ComparedDocuments
 */

/**
 * `file` (a bundle, or the multi-file source's root) bundled by the pinned `redocly bundle`, so
 * that the spec toolkit, which reads local references only, can read it.
 *
 * @param {string} file
 * @returns {unknown}
 */
function bundled(file) {
  const directory = mkdtempSync(join(tmpdir(), 'contract-changes-'));
  try {
    const output = join(directory, 'bundle.json');
    const result = spawnSync(
      process.execPath,
      [redocly, 'bundle', resolve(file), '--config', diffConfig, '--output', output],
      { cwd: root, encoding: 'utf8', env: { ...process.env, REDOCLY_TELEMETRY: 'off' } },
    );
    if (result.status !== 0) {
      throw new ContractDiffError(
        `redocly bundle ${redoclyVersion} could not bundle ${file}:\n${result.stderr.trim()}`,
      );
    }
    return JSON.parse(readFileSync(output, 'utf8'));
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/**
 * @param {string} base @param {string} revision
 * @returns {ComparedDocuments}
 */
function comparedDocuments(base, revision) {
  /** @param {string} file */
  const once = (file) => {
    /** @type {{ document: unknown } | undefined} */
    let made;
    return () => {
      made ??= { document: bundled(file) };
      return made.document;
    };
  };
  return { base: once(base), revision: once(revision) };
}

/**
 * The two differences that come from comparing a bundle (all components gathered under
 * `components`, `info.description` inlined) with the multi-file source (components reached only
 * through `$ref`s from the paths, `info.description` a `$ref` to info-description.md). Neither is
 * a change of the contract: a component removed from the source shows up where it is used, under
 * `paths`, and a description is never breaking.
 *
 * @param {Change} change
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
 * each such pair dropped when the revision's bundled sample is the base's, and rated editorial
 * (as a changed inline sample is) when it is not.
 *
 * @param {Change[]} changes @param {ComparedDocuments} documents
 * @returns {Change[]}
 */
function withCodeSamplesResolved(changes, documents) {
  const removed = new Map(
    changes
      .filter((change) => change.kind === 'removed' && change.typeName === 'XCodeSample')
      .map((change) => [change.path, change]),
  );
  const paired = new Map();
  for (const change of changes) {
    const before = removed.get(change.path)?.base?.value;
    if (change.typeName !== 'XCodeSample' || change.kind !== 'added' || !before) continue;
    const sample = resolveLocalRef(documents.revision(), change.path);
    const same =
      isObject(sample) &&
      before.lang === sample.lang &&
      before.label === sample.label &&
      before.source === sample.source;
    paired.set(change.path, same);
  }
  return changes.flatMap((change) => {
    if (!paired.has(change.path) || change.typeName !== 'XCodeSample') return [change];
    if (paired.get(change.path) || change.kind === 'removed') return [];
    return [{ ...change, kind: 'modified', impact: 'patch' }];
  });
}

/**
 * `redocly diff` does not always recognize a server whose fields changed together (a new
 * description and `x-internal`, or a new description at another position): it shows it as
 * removed (its `server-removed` verdict breaking) and another added. A client that calls that URL still can,
 * so each such pair is one change: `modified` in place (editorial when only its description or
 * `x-` fields changed), or `moved`, which is compatible, since the first server is what tools
 * take as their default base URL. A server whose URL is no longer listed stays removed, and
 * breaking.
 *
 * @param {Change[]} changes
 * @returns {Change[]}
 */
function withServersPaired(changes) {
  /** @param {Side | undefined} side */
  const serverUrl = (side) => side?.value?.url;
  /** @param {Change} change @param {string} kind */
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
  /** @param {object} before @param {object} after */
  const editorialOnly = (before, after) => {
    /** @param {object} server */
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
    /** @type {Change['impact']} */
    const impact =
      moved || !editorialOnly(before.base?.value, change.revision?.value) ? 'minor' : 'patch';
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
 * `documents` are the two documents bundled, for {@link changesInWords}.
 *
 * @param {string} base the earlier document
 * @param {string} revision the later one
 * @returns {{ versions: { base: string; revision: string }; changes: Change[]; documents: ComparedDocuments }}
 */
export function contractChanges(base, revision) {
  const report = diffReport(base, revision);
  const documents = comparedDocuments(base, revision);
  const changes = withServersPaired(withCodeSamplesResolved(report.changes, documents)).filter(
    (change) => !isBundlingArtefact(change),
  );
  return { versions: report.infoVersions, changes, documents };
}

/** The fields of a path item that are operations (OpenAPI 3.1, Path Item Object). */
const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/**
 * Where a change is: `POST /api/v1/external/users` and the rest of the pointer below the
 * operation (`requestBody/content/...`); `path /api/v1/external/users/{id}` and the rest below
 * the path item, for what applies to each of its operations (its `parameters`); or the
 * document's section (`servers`, `info`, ...).
 *
 * @param {string} pointer a change's `path`
 * @returns {{ scope: string; rest: string[]; method?: string; path?: string }}
 */
export function scopeOf(pointer) {
  const segments = pointerSegments(pointer);
  const [section, path, field] = segments;
  if (section === 'paths' && path !== undefined && field !== undefined && METHODS.has(field)) {
    return {
      scope: `${field.toUpperCase()} ${path}`,
      method: field.toUpperCase(),
      path,
      rest: segments.slice(3),
    };
  }
  if (section === 'paths' && path !== undefined) {
    return { scope: `path ${path}`, path, rest: segments.slice(2) };
  }
  return { scope: segments[0] || 'document', rest: segments.slice(1) };
}

/**
 * The parameters a change under `parameters` is about, each as the document declares it
 * (`{ name, in, … }`, its `$ref` followed): the list's, when a whole list was added or removed;
 * else the one parameter the change is in (`parameters/<index>`, or a property below it). Read
 * from the document the change's value is in: the revision's, or the base's for a removal.
 *
 * @param {Change} change @param {string[]} below the pointer's segments after `parameters`
 * @param {ComparedDocuments} documents
 * @returns {unknown[]}
 */
function parametersOf(change, below, documents) {
  const document = change.revision ? documents.revision() : documents.base();
  const segments = pointerSegments(change.path);
  const list = segments.slice(0, segments.length - below.length);
  const at = below.length === 0 ? list : [...list, below[0] ?? ''];
  const value = dereference(document, resolveLocalRef(document, pointerOf(at)));
  if (below.length > 0) return [value];
  return Array.isArray(value) ? value.map((parameter) => dereference(document, parameter)) : [];
}

/**
 * A parameter as a reader finds it: where it goes and its name (`header \`Signature-Input\``).
 *
 * @param {any} parameter
 */
function parameterName(parameter) {
  return typeof parameter?.name === 'string' && typeof parameter?.in === 'string'
    ? `${parameter.in} \`${parameter.name}\``
    : 'a parameter';
}

/** How a change's impact is said to a reader. */
export const IMPACT_NAMES = { major: 'breaking', minor: 'compatible', patch: 'editorial' };

/**
 * The field a pointer into a schema names (`account.account_name`, `documents[]`), or undefined
 * for the schema as a whole.
 *
 * @param {string[]} segments
 */
function fieldOf(segments) {
  const names = [];
  for (let index = 0; index < segments.length; index += 1) {
    if (segments[index] === 'properties' && segments[index + 1] !== undefined) {
      index += 1;
      names.push(segments[index]);
    } else if (segments[index] === 'items' && names.length > 0) {
      names[names.length - 1] += '[]';
    }
  }
  return names.length > 0 ? names.join('.') : undefined;
}

/**
 * What a pointer below an operation names, in words (`field \`email\` of the request body`).
 *
 * @param {string[]} rest @param {Change} change @param {ComparedDocuments} documents
 */
function operationPart(rest, change, documents) {
  const [first, ...more] = rest;
  if (first === undefined) return 'the operation';
  if (first === 'requestBody') {
    const field = fieldOf(more.slice(3));
    return field ? `field \`${field}\` of the request body` : 'the request body';
  }
  if (first === 'responses' && more[0] !== undefined) {
    const answer = `the \`${more[0]}\` answer`;
    if (more[1] === 'headers') {
      return more[2] ? `header \`${more[2]}\` of ${answer}` : `the headers of ${answer}`;
    }
    if (more[1] === 'content') {
      const field = fieldOf(more.slice(4));
      return field ? `field \`${field}\` of ${answer}` : `the body of ${answer}`;
    }
    return answer;
  }
  if (first === 'parameters') {
    const [parameter] = parametersOf(change, more, documents);
    return more.length === 0 ? 'the parameters' : parameterName(parameter);
  }
  if (first === 'x-codeSamples') {
    const lang = (change.revision ?? change.base)?.value?.lang;
    return lang ? `the ${lang} code sample` : 'a code sample';
  }
  return `\`${rest.join('/')}\``;
}

/**
 * A value short enough to quote, or undefined.
 *
 * @param {unknown} value
 */
function quoted(value) {
  if (value === undefined) return undefined;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length <= 60 && !text.includes('\n') ? `\`${text}\`` : undefined;
}

/**
 * What happened to the subject, in words.
 *
 * @param {Change} change
 */
function actionOf(change) {
  const before = change.base?.value;
  const after = change.revision?.value;
  if (change.kind === 'moved') {
    const from = Number(change.movedFrom?.split('/').at(-1)) + 1;
    const to = Number(change.path.split('/').at(-1)) + 1;
    return `moved from position ${from} to ${to} in the list`;
  }
  if (change.kind === 'added') {
    if (change.typeName === 'HeadersMap' && after && typeof after === 'object') {
      return `added: ${Object.keys(after)
        .map((name) => `\`${name}\``)
        .join(', ')}`;
    }
    return 'added';
  }
  if (change.kind === 'removed') return 'removed';
  if (!change.property) return 'changed';
  if (change.property === 'description' || change.property === 'summary') {
    return `${change.property} reworded`;
  }
  const [was, now] = [quoted(before), quoted(after)];
  if (before === undefined && now) return `\`${change.property}\` now ${now}`;
  if (after === undefined && was) return `\`${change.property}\` ${was} removed`;
  if (was && now) return `\`${change.property}\` changed from ${was} to ${now}`;
  return `\`${change.property}\` changed`;
}

/**
 * A change in words, for readers of the changelog: where (the operation, or the part of the
 * document), what (the field, answer, header, parameter or sample), what happened, and its
 * impact as the gate rates it (`breaking`, `compatible`, `editorial`), with the diff rules'
 * own explanations (`details`).
 *
 * @param {Change} change a change of {@link contractChanges}
 * @param {ComparedDocuments} documents the documents compared ({@link contractChanges})
 * @returns {ChangeInWords}
 */
function changeInWords(change, documents) {
  const { scope, rest, method, path } = scopeOf(change.path);
  const value = (change.revision ?? change.base)?.value;
  let area = scope;
  /** @type {string} */
  let subject;
  if (method) {
    subject = operationPart(rest, change, documents);
  } else if (path !== undefined) {
    area = path;
    subject =
      rest.length === 0
        ? 'the path'
        : `${operationPart(rest, change, documents)} (every operation of the path)`;
  } else if (scope === 'servers') {
    area = 'Servers';
    subject = value?.url ? `server \`${value.url}\`` : 'the servers';
  } else if (scope === 'info') {
    area = 'Info';
    subject = rest.length > 0 ? `\`info.${rest.join('.')}\`` : '`info`';
  } else if (scope === 'components') {
    area = 'Components';
    subject = `\`${rest.join('/')}\``;
  } else {
    subject = rest.length > 0 ? `\`${rest.join('/')}\`` : 'the document';
  }
  const action = actionOf(change);
  return {
    area,
    subject,
    action,
    impact: IMPACT_NAMES[change.impact] ?? change.impact,
    details: change.verdicts.map((verdict) => verdict.message),
  };
}

/**
 * {@link changeInWords}, with a list of parameters added or removed whole told as each of its
 * parameters (`header \`Signature-Input\`: added`), since each is a change a client sees.
 *
 * @param {Change} change a change of {@link contractChanges}
 * @param {ComparedDocuments} documents the documents compared ({@link contractChanges})
 * @returns {ChangeInWords[]}
 */
export function changesInWords(change, documents) {
  const { rest } = scopeOf(change.path);
  const whole = change.typeName === 'ParameterList' && rest.length === 1;
  const parameters = whole ? parametersOf(change, [], documents) : [];
  if (parameters.length === 0) return [changeInWords(change, documents)];
  const words = changeInWords(change, documents);
  return parameters.map((parameter) => ({
    ...words,
    subject: words.subject.replace('the parameters', parameterName(parameter)),
  }));
}

/**
 * The record of a release's changes that `npm run release:version` keeps in
 * `released/changes/<version>.json`, and the docs' changelog page lists: each change between the
 * last release and the contract about to be released, in words, as rated at that release (only
 * the last release's contract is kept, so it cannot be compared again later).
 *
 * @param {string} base the last release's bundle (`released/openapi.yaml`)
 * @param {string} revision the bundle about to be released (`packages/types/openapi.yaml`)
 * @returns {{ version: string; since: string; comparedBy: string; changes: ChangeInWords[] }}
 */
export function releaseRecord(base, revision) {
  const { versions, changes, documents } = contractChanges(base, revision);
  return {
    version: versions.revision,
    since: versions.base,
    comparedBy: `redocly diff ${redoclyVersion}`,
    changes: changes.flatMap((change) => changesInWords(change, documents)),
  };
}
