/**
 * The docs' changelog page, `dist/changelog.html` (spec: Assumptions, "Changelog"): what changed
 * in the contract, for the changes not released yet and per released version, each change in
 * words (where, what, breaking or compatible), from the comparison the breaking-change gate makes
 * (`scripts/lib/contract-changes.mjs`, Redocly's `diff`):
 *
 * - not released: the working spec (`openapi/openapi.yaml`) against the last release
 *   (`released/openapi.yaml`), compared at build time, with the entries the pending changesets
 *   will write in the CHANGELOG of `@institution-api/types`;
 * - each release whose changes `npm run release:version` recorded (`released/changes/<version>.json`,
 *   the same comparison made at that release), with its CHANGELOG entries;
 * - each older release, its CHANGELOG entries only (only the last release's contract is kept, so
 *   its changes cannot be compared again), and the page says so.
 *
 * Self-contained like the docs page: inline styles, no script, a content security policy.
 *
 * @module
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  changesInWords,
  contractChanges,
  redoclyVersion,
  root,
} from '../../../../scripts/lib/contract-changes.mjs';

/** The package whose version is the contract's version (root README, "Versions"). */
const CONTRACT_PACKAGE = '@institution-api/types';

/**
 * @typedef {{ area: string; subject: string; action: string; impact: string; details: string[] }} ChangeInWords
 * @typedef {{ version: string; since?: string; comparedBy?: string; changes?: ChangeInWords[]; notes: string }} Release
 * @typedef {{ since: string; planned: string; comparedBy: string; changes: ChangeInWords[]; changesets: { bump: string; summary: string }[] }} Unreleased
 */

/**
 * The `## <version>` sections of a package's CHANGELOG.md (changesets' format), newest first.
 *
 * @param {string} text
 * @returns {Map<string, string>} version → its Markdown
 */
export function changelogSections(text) {
  const sections = new Map();
  const parts = text.split(/^## /m).slice(1);
  for (const part of parts) {
    const [heading = '', ...body] = part.split('\n');
    sections.set(heading.trim(), body.join('\n').trim());
  }
  return sections;
}

/**
 * The pending changesets that name the contract's package: their bump and their sentence.
 *
 * @param {string} dir the `.changeset` directory
 */
function pendingChangesets(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((file) => file.endsWith('.md') && file !== 'README.md')
    .sort()
    .flatMap((file) => {
      const text = readFileSync(join(dir, file), 'utf8');
      const [, front = '', summary = ''] = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text) ?? [];
      const bump = new RegExp(`^"${CONTRACT_PACKAGE}":\\s*(\\w+)`, 'm').exec(front)?.[1];
      return bump ? [{ bump, summary: summary.trim() }] : [];
    });
}

/**
 * What the page shows, read from the repository.
 *
 * @param {{ root?: string; revision?: string }} [where] the repository (default: this one) and
 *   the working spec's root file (default: its `openapi/openapi.yaml`)
 * @returns {{ unreleased: Unreleased; releases: Release[] }}
 */
export function changelogData(where = {}) {
  const repository = where.root ?? root;
  const released = join(repository, 'released');
  const comparedBy = `redocly diff ${redoclyVersion}`;
  const { versions, changes, documents } = contractChanges(
    join(released, 'openapi.yaml'),
    where.revision ?? join(repository, 'openapi', 'openapi.yaml'),
  );
  const notes = changelogSections(
    readFileSync(join(repository, 'packages', 'types', 'CHANGELOG.md'), 'utf8'),
  );
  const recordedDir = join(released, 'changes');
  /** @type {Map<string, { version: string; since: string; comparedBy: string; changes: ChangeInWords[] }>} */
  const recorded = new Map(
    (existsSync(recordedDir) ? readdirSync(recordedDir) : [])
      .filter((file) => file.endsWith('.json'))
      .map((file) => JSON.parse(readFileSync(join(recordedDir, file), 'utf8')))
      .map((record) => [record.version, record]),
  );
  const releases = [...notes].map(([version, text]) => ({
    version,
    ...(recorded.get(version) ?? {}),
    notes: text,
  }));
  return {
    unreleased: {
      since: versions.base,
      planned: versions.revision,
      comparedBy,
      changes: changes.flatMap((change) => changesInWords(change, documents)),
      changesets: pendingChangesets(join(repository, '.changeset')),
    },
    releases,
  };
}

/** @param {unknown} text */
const escapeHtml = (text) =>
  String(text)
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');

/**
 * Inline Markdown: `code`, **strong**, [links](url); everything else as text.
 *
 * @param {string} text
 */
function inline(text) {
  return escapeHtml(text)
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
    .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, '<a href="$2">$1</a>');
}

/**
 * The Markdown of a CHANGELOG section or a changeset: headings, bullet lists, paragraphs.
 *
 * @param {string} text
 */
function markdown(text) {
  /** @type {string[]} */
  const html = [];
  let list = false;
  /** @type {string[]} */
  let item = [];
  /** @type {string[]} */
  let paragraph = [];
  const flush = () => {
    if (item.length > 0) html.push(`<li>${inline(item.join(' '))}</li>`);
    item = [];
    if (paragraph.length > 0) html.push(`<p>${inline(paragraph.join(' '))}</p>`);
    paragraph = [];
  };
  const closeList = () => {
    flush();
    if (list) html.push('</ul>');
    list = false;
  };
  for (const line of text.split('\n')) {
    const heading = /^#{3,6} (.*)$/.exec(line);
    const bullet = /^[-*] (.*)$/.exec(line);
    if (heading) {
      closeList();
      html.push(`<h4>${inline(heading[1] ?? '')}</h4>`);
    } else if (bullet) {
      flush();
      if (!list) html.push('<ul>');
      list = true;
      item.push(bullet[1] ?? '');
    } else if (line.trim() === '') {
      if (list) closeList();
      else flush();
    } else if (list) {
      item.push(line.trim());
    } else {
      paragraph.push(line.trim());
    }
  }
  closeList();
  return html.join('\n');
}

/** @type {Record<string, number>} */
const IMPACT_ORDER = { breaking: 0, compatible: 1, editorial: 2 };

/**
 * The changes of one version, grouped by where they are, breaking first.
 *
 * @param {ChangeInWords[]} changes
 */
function changeList(changes) {
  /** @param {string} impact */
  const rows = (impact) => {
    /** @type {Map<string, ChangeInWords[]>} */
    const byArea = new Map();
    for (const change of changes.filter((each) => each.impact === impact)) {
      byArea.set(change.area, [...(byArea.get(change.area) ?? []), change]);
    }
    return [...byArea]
      .map(
        ([area, list]) => `<h4 class="area">${inline(`\`${area}\``)}</h4>
<ul class="changes">
${list
  .map(
    (change) =>
      `<li><span class="impact ${change.impact}">${change.impact}</span> ${inline(
        `${change.subject.charAt(0).toUpperCase()}${change.subject.slice(1)}: ${change.action}.`,
      )}${change.details.map((detail) => `<br><span class="detail">${inline(detail)}</span>`).join('')}</li>`,
  )
  .join('\n')}
</ul>`,
      )
      .join('\n');
  };
  /** @param {string} impact */
  const count = (impact) => changes.filter((change) => change.impact === impact).length;
  const sorted = [...new Set(changes.map((change) => change.impact))].sort(
    (a, b) => (IMPACT_ORDER[a] ?? 3) - (IMPACT_ORDER[b] ?? 3),
  );
  const parts = [
    `<p class="counts"><span class="impact breaking">${count('breaking')} breaking</span> <span class="impact compatible">${count('compatible')} compatible</span> <span class="impact editorial">${count('editorial')} editorial</span></p>`,
  ];
  for (const impact of sorted.filter((each) => each !== 'editorial')) parts.push(rows(impact));
  if (count('editorial') > 0) {
    parts.push(
      `<details><summary>${count('editorial')} editorial changes: descriptions, examples, samples, bounds and formats that document what was already so</summary>\n${rows('editorial')}\n</details>`,
    );
  }
  return parts.join('\n');
}

/**
 * The page.
 *
 * @param {{ unreleased: Unreleased; releases: Release[] }} data from {@link changelogData}
 * @param {{ title: string; description: string }} spec the spec's title and the page's description
 * @returns {string} the HTML
 */
export function changelogPage({ unreleased, releases }, { title, description }) {
  const unreleasedSection = `<section id="unreleased">
<h2>Not released yet <span class="version">${escapeHtml(unreleased.planned)}, planned</span></h2>
<p class="meta">The working contract against the last release, ${escapeHtml(unreleased.since)}: compared by ${escapeHtml(unreleased.comparedBy)} when these docs were built, as the breaking-change gate compares them.</p>
<h3>Each change</h3>
${unreleased.changes.length > 0 ? changeList(unreleased.changes) : '<p>None: the working contract is the last release’s.</p>'}
${
  unreleased.changesets.length > 0
    ? `<h3>What the release notes will say</h3>\n<ul class="notes">${unreleased.changesets
        .map(
          ({ bump, summary }) =>
            `<li><span class="bump">${escapeHtml(bump)}</span> ${markdown(summary)}</li>`,
        )
        .join('\n')}</ul>`
    : ''
}
</section>`;
  const releaseSections = releases
    .map(
      (release) => `<section id="v${escapeHtml(release.version)}">
<h2>${escapeHtml(release.version)} <span class="version">released</span></h2>
${release.notes ? `<h3>Release notes</h3>\n${markdown(release.notes)}` : ''}
${
  release.changes
    ? `<h3>Each change</h3>\n<p class="meta">Against ${escapeHtml(release.since ?? 'the release before')}, compared by ${escapeHtml(release.comparedBy ?? 'redocly diff')} when it was released.</p>\n${changeList(release.changes)}`
    : '<p class="meta">Its changes one by one were not recorded: the repository keeps only the last release’s contract, so they are given by its release notes. From the next release on, <code>npm run release:version</code> records each release’s changes as this page lists them.</p>'
}
</section>`,
    )
    .join('\n');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Changelog · ${escapeHtml(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="description" content="${escapeHtml(description)}">
<!-- Self-contained, as the docs page: no script, no request. -->
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'">
<link rel="icon" href="data:,">
<style>
  body { margin: 0; font-family: system-ui, sans-serif; color: #1f2328; line-height: 1.5; }
  header { display: flex; flex-wrap: wrap; gap: 8px 24px; align-items: baseline; padding: 12px 32px; border-bottom: 1px solid #d0d7de; background: #f6f8fa; }
  header .title { font-weight: 600; margin-right: auto; }
  header a { color: #0969da; text-decoration: none; }
  main { max-width: 960px; margin: 0 auto; padding: 8px 32px 64px; }
  h1 { font-size: 1.9rem; margin: 24px 0 8px; }
  h2 { font-size: 1.4rem; margin: 40px 0 4px; padding-bottom: 4px; border-bottom: 1px solid #d0d7de; }
  h3 { font-size: 1.05rem; margin: 20px 0 6px; }
  h4 { font-size: 0.95rem; margin: 16px 0 4px; }
  h4.area code { font-size: 0.95rem; }
  .version { font-weight: 400; color: #57606a; font-size: 1rem; }
  .meta { color: #57606a; margin: 4px 0; }
  code { font-family: ui-monospace, monospace; font-size: 0.88em; background: #eff1f3; padding: 1px 4px; border-radius: 4px; word-break: normal; overflow-wrap: anywhere; }
  ul.changes { list-style: none; padding-left: 0; margin: 4px 0; }
  ul.changes li { padding: 4px 0; border-bottom: 1px solid #eaeef2; }
  .impact, .bump { display: inline-block; min-width: 84px; text-align: center; font-size: 0.75rem; font-weight: 600; text-transform: uppercase; letter-spacing: 0.02em; padding: 1px 6px; border-radius: 10px; margin-right: 6px; }
  .breaking { background: #ffebe9; color: #a40e26; }
  .compatible { background: #dafbe1; color: #116329; }
  .editorial, .bump { background: #eaeef2; color: #424a53; }
  .counts .impact { min-width: 0; }
  .detail { color: #57606a; padding-left: 96px; display: inline-block; }
  ul.notes > li { margin: 8px 0; }
  ul.notes > li > p { display: inline; }
  details { margin: 12px 0; }
  summary { cursor: pointer; color: #0969da; }
</style>
</head>
<body>
<header>
  <span class="title">${escapeHtml(title)}</span>
  <a href="./">API reference</a>
  <a href="changelog.html" aria-current="page">Changelog</a>
  <a href="institution-api.postman_collection.json" download>Postman collection</a>
  <a href="openapi.yaml" download>openapi.yaml</a>
</header>
<main>
<h1>Changelog of the contract</h1>
<p>What changed in the User Management Interface, version by version. The contract’s version is that of <code>${CONTRACT_PACKAGE}</code>: a change that breaks clients comes only with a new major version. Each change below is rated as the release’s breaking-change gate rates it: <strong>breaking</strong> (clients written for the version before may fail), <strong>compatible</strong> (something added), or <strong>editorial</strong> (wording, examples, and bounds or formats that document what the service already did).</p>
${unreleasedSection}
${releaseSections}
</main>
</body>
</html>
`;
}
