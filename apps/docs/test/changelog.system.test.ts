/**
 * The changelog page (spec: Assumptions, "Changelog"): the contract's changes in words, from the
 * comparison the breaking-change gate makes (Redocly's `diff`), for the changes not released yet
 * and per released version. On this repository as it is; on an edited copy of the spec (a
 * breaking change must read as breaking, with the field and the operation); and on a repository
 * one release later, whose changes `npm run release:version` recorded. Each compares with
 * Redocly's `diff`, a program of its own (so the system tier).
 */
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { releaseRecord } from '../../../scripts/lib/contract-changes.mjs';
import { editedSpecCopy } from '../../../scripts/lib/edited-spec-copy.mjs';
import { changelogData, changelogPage } from '../scripts/lib/changelog-page.mjs';
import { findExternalFetches } from '../scripts/lib/offline.mjs';

const repository = fileURLToPath(new URL('../../../', import.meta.url));
const openapi = join(repository, 'openapi');
const releasedVersions = JSON.parse(
  readFileSync(join(repository, 'released', 'versions.json'), 'utf8'),
) as Record<string, string>;
const spec = parse(readFileSync(join(openapi, 'openapi.yaml'), 'utf8')) as {
  info: { version: string; title: string };
};
const copies: string[] = [];
afterAll(() => {
  for (const copy of copies) rmSync(copy, { recursive: true, force: true });
});

const page = readFileSync(new URL('../dist/changelog.html', import.meta.url), 'utf8');
const pageOf = (data: ReturnType<typeof changelogData>) =>
  changelogPage(data, { title: spec.info.title, description: 'changes' });

describe('the changelog of this repository', { timeout: 60_000 }, () => {
  const data = changelogData();

  it('compares the working contract with the last release, as the gate does', () => {
    expect(data.unreleased.since).toBe(releasedVersions['@institution-api/types']);
    expect(data.unreleased.planned).toBe(spec.info.version);
    expect(data.unreleased.comparedBy).toBe('redocly diff 2.77.0');
    expect(data.unreleased.changes.filter(({ impact }) => impact === 'breaking')).toEqual([]);
    // And what the pending changesets will write in the release notes, each of them.
    const pending = readdirSync(join(repository, '.changeset')).filter(
      (file) => file.endsWith('.md') && file !== 'README.md',
    );
    expect(data.unreleased.changesets).toHaveLength(pending.length);
  });

  it('lists the last release with the changes npm run release:version recorded for it', () => {
    const [latest] = data.releases;
    expect(latest?.version).toBe(releasedVersions['@institution-api/types']);
    expect(latest?.since).toBe('1.0.0');
    expect(latest?.comparedBy).toBe('redocly diff 2.77.0');
    // The servers of 1.1.0, and its 503, in words.
    expect(latest?.changes).toContainEqual({
      area: 'Servers',
      subject: 'server `http://localhost:8080`',
      action: 'added',
      impact: 'compatible',
      details: [],
    });
    expect(latest?.changes).toContainEqual(
      expect.objectContaining({
        area: 'POST /api/v1/external/users',
        subject: 'the `503` answer',
        action: 'added',
        impact: 'compatible',
      }),
    );
    expect(latest?.changes?.filter(({ impact }) => impact === 'breaking')).toEqual([]);
  });

  it('lists each release from the CHANGELOG, saying when its changes were not recorded', () => {
    const [oldest] = data.releases.slice(-1);
    expect(oldest?.version).toBe('1.0.0');
    expect(oldest?.notes).toContain('First release');
    expect(oldest?.changes).toBeUndefined();
  });

  it('is the page the build wrote: every change in words, self-contained, linked', () => {
    expect(page).toBe(
      changelogPage(data, {
        title: spec.info.title,
        description: `What changed in the ${spec.info.title}, version by version.`,
      }),
    );
    expect(page).toContain('<h2>Not released yet <span class="version">');
    expect(page).toContain(
      '<span class="impact compatible">compatible</span> Server <code>http://localhost:8080</code>: added.',
    );
    expect(page).toContain('<section id="v1.0.0">');
    expect(page).toContain('the repository keeps only the last release’s contract');
    expect(page).not.toMatch(/<script/i);
    expect(page).toContain(
      `content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"`,
    );
    expect(findExternalFetches(page, { redoc: false })).toEqual([]);
    for (const href of ['./', 'changelog.html', 'institution-api.postman_collection.json']) {
      expect(page).toContain(`<a href="${href}"`);
    }
  });
});

// biome-ignore lint/suspicious/noExplicitAny: parsed YAML; each edit knows the shape of its file
type Yaml = Record<string, any>;

/** An edited copy of the spec's sources (file under openapi/ → a mutation); returns its root file. */
function editedSpec(edits: Record<string, (document: Yaml) => void>) {
  const { directory, root } = editedSpecCopy(edits);
  copies.push(directory);
  return root;
}

describe('a breaking change', { timeout: 60_000 }, () => {
  it('reads as breaking, with its operation, its field and the diff rule’s words', () => {
    const revision = editedSpec({
      'components/schemas/UserInput.yaml': (schema) => {
        schema.properties = {
          nickname: { description: 'A nickname.', type: 'string' },
          ...schema.properties,
        };
        schema.required.push('nickname');
      },
    });
    const data = changelogData({ revision });
    const breaking = data.unreleased.changes.filter(({ impact }) => impact === 'breaking');
    expect(breaking).toContainEqual({
      area: 'POST /api/v1/external/users',
      subject: 'the request body',
      action: '`required` changed',
      impact: 'breaking',
      details: ['Properties became required: `nickname`.'],
    });
    expect(pageOf(data)).toContain('<span class="impact breaking">');
  });
});

describe('parameters', { timeout: 60_000 }, () => {
  it('each added, removed or changed one is named with where it goes, path-level ones too', () => {
    const header = (name: string) => ({ name, in: 'header', schema: { type: 'string' } });
    const revision = editedSpec({
      // a list of two added to the path (so to each of its operations)
      'paths/api_v1_external_users.yaml': (item) => {
        item.parameters = [header('Traceparent'), header('Tracestate')];
      },
      // one added to the path's list; the operation's whole list of three removed
      'paths/api_v1_external_users_{id}.yaml': (item) => {
        item.parameters.push({ name: 'locale', in: 'query', schema: { type: 'string' } });
        delete item.put.parameters;
      },
      'components/parameters/Prefer.yaml': (parameter) => {
        parameter.required = true;
      },
    });
    // Against the contract as it is, as release:version records a release's changes.
    const words = releaseRecord(join(openapi, 'dist', 'openapi.yaml'), revision)
      .changes.filter(({ subject }) => /^(header|query) /.test(subject))
      .map(({ area, subject, action, impact }) => `${area}: ${subject}: ${action} (${impact})`);
    expect(words.sort()).toEqual(
      [
        '/api/v1/external/users: header `Traceparent` (every operation of the path): added (compatible)',
        '/api/v1/external/users: header `Tracestate` (every operation of the path): added (compatible)',
        '/api/v1/external/users/{id}: query `locale` (every operation of the path): added (compatible)',
        'PUT /api/v1/external/users/{id}: header `Signature-Input`: removed (breaking)',
        'PUT /api/v1/external/users/{id}: header `Signature`: removed (breaking)',
        'PUT /api/v1/external/users/{id}: header `Content-Digest`: removed (breaking)',
        'POST /api/v1/external/users: header `Prefer`: `required` changed from `false` to `true` (breaking)',
      ].sort(),
    );
  });
});

describe('one release later', { timeout: 60_000 }, () => {
  it('lists the release with the changes npm run release:version recorded', () => {
    // As release:version leaves the repository after releasing a designer's change (an optional
    // request field, contract 1.2.0): the released contract is that revision, its changes recorded
    // against the release before, its notes in the CHANGELOG.
    const { directory, root: revision } = editedSpecCopy({
      'openapi.yaml': (document) => {
        document.info.version = '1.2.0';
      },
      'components/schemas/UserInput.yaml': (schema) => {
        schema.properties = {
          nickname: { description: 'A nickname.', type: 'string' },
          ...schema.properties,
        };
      },
    });
    copies.push(directory);
    const record = releaseRecord(join(repository, 'released', 'openapi.yaml'), revision);
    expect(record.version).toBe('1.2.0');
    const root = mkdtempSync(join(tmpdir(), 'changelog-repository-'));
    copies.push(root);
    // The released contract, with the sources it refers to beside it.
    cpSync(directory, join(root, 'released'), { recursive: true });
    cpSync(join(repository, 'released', 'changes'), join(root, 'released', 'changes'), {
      recursive: true,
    });
    writeFileSync(
      join(root, 'released', 'changes', `${record.version}.json`),
      JSON.stringify(record),
    );
    mkdirSync(join(root, 'packages', 'types'), { recursive: true });
    const changelog = readFileSync(join(repository, 'packages', 'types', 'CHANGELOG.md'), 'utf8');
    writeFileSync(
      join(root, 'packages', 'types', 'CHANGELOG.md'),
      changelog.replace(
        '\n## ',
        `\n## ${record.version}\n\n### Minor Changes\n\n- Users may have a nickname.\n\n## `,
      ),
    );

    const data = changelogData({ root, revision });
    expect(data.unreleased.since).toBe(record.version);
    expect(data.unreleased.changes.filter(({ impact }) => impact !== 'editorial')).toEqual([]);
    expect(data.releases.map(({ version }) => version)).toEqual([
      record.version,
      releasedVersions['@institution-api/types'],
      '1.0.0',
    ]);
    const [latest] = data.releases;
    expect(latest?.since).toBe(releasedVersions['@institution-api/types']);
    expect(latest?.changes).toContainEqual(
      expect.objectContaining({ area: 'POST /api/v1/external/users', impact: 'compatible' }),
    );
    expect(JSON.stringify(latest?.changes)).toContain('nickname');
    const html = pageOf(data);
    expect(html).toContain(`<section id="v${record.version}">`);
    expect(html).toContain(
      `Against ${releasedVersions['@institution-api/types']}, compared by redocly diff 2.77.0 when it was released.`,
    );
    expect(html).toContain('<li>Users may have a nickname.</li>');
  });
});
