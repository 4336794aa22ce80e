/**
 * The release rules, `npm run release:check` (scripts/release/check.mjs, part of `npm run lint`),
 * on this repository and on fixtures built from its own package.json files: the contract's
 * info.version is the version @institution-api/types will have once the pending changesets are
 * applied; a major of the types is a breaking release of the client; sibling ranges are exact;
 * the published packages ship a changelog and carry their license, repository, description,
 * engines and files; private workspaces stay private and depend on their published siblings with
 * "*".
 */
import { execFile } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const exec = promisify(execFile);
const repository = fileURLToPath(new URL('../../', import.meta.url));
const check = join(repository, 'scripts', 'release', 'check.mjs');
const fixtures: string[] = [];
const CONFORMANCE = '@institution-api/conformance';
const FIXTURE_VERSIONS: Record<string, string> = {
  '@institution-api/types': '1.0.0',
  '@institution-api/runtime': '0.1.0',
  '@institution-api/signing': '0.1.0',
  '@institution-api/client': '0.1.0',
  '@institution-api/cli': '0.1.0',
  '@institution-api/conformance': '0.1.0',
  '@institution-api/mock': '0.1.0',
};

// biome-ignore lint/suspicious/noExplicitAny: package.json files, edited by each fixture
type Json = Record<string, any>;
const readJson = (file: string): Json => JSON.parse(readFileSync(file, 'utf8'));

interface Fixture {
  infoVersion?: string;
  changesets?: Record<string, string>;
  packages?: Record<string, (json: Json) => void>;
  without?: string[];
}

/** A checkout with this repository's package.json files, edited as `fixture` says. */
function makeFixture({
  infoVersion = '1.0.0',
  changesets = {},
  packages = {},
  without = [],
}: Fixture) {
  const root = mkdtempSync(join(tmpdir(), 'release-check-'));
  fixtures.push(root);
  const files = [
    'package.json',
    'LICENSE',
    'package-lock.json', // how the workspace tool Changesets uses knows this is an npm workspace
    '.changeset/config.json',
    'openapi/package.json',
    'released/versions.json',
    'released/openapi.yaml',
    'apps/docs/package.json',
    'apps/reference-server/package.json',
    ...['types', 'runtime', 'signing', 'client', 'cli', 'conformance', 'mock'].flatMap((name) =>
      ['package.json', 'README.md', 'CHANGELOG.md'].map((file) => `packages/${name}/${file}`),
    ),
  ];
  for (const file of files.filter((file) => !without.includes(file))) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    cpSync(join(repository, file), join(root, file));
  }
  writeFileSync(
    join(root, 'openapi', 'openapi.yaml'),
    `openapi: 3.1.0\ninfo:\n  version: ${infoVersion}\n`,
  );
  // Versions of their own, so that the expectations below hold whatever this repository's are.
  writeFileSync(
    join(root, 'released', 'openapi.yaml'),
    'openapi: 3.1.0\ninfo:\n  version: 1.0.0\n',
  );
  writeFileSync(join(root, 'released', 'versions.json'), JSON.stringify(FIXTURE_VERSIONS));
  for (const [name, version] of Object.entries(FIXTURE_VERSIONS)) {
    const dir = `packages/${name.replace('@institution-api/', '')}`;
    const json = readJson(join(root, dir, 'package.json'));
    json.version = version;
    for (const field of ['dependencies', 'devDependencies', 'peerDependencies']) {
      for (const dependency of Object.keys(json[field] ?? {})) {
        const pinned = FIXTURE_VERSIONS[dependency];
        if (pinned) json[field][dependency] = pinned;
      }
    }
    writeFileSync(join(root, dir, 'package.json'), JSON.stringify(json, null, 2));
    if (!without.includes(`${dir}/CHANGELOG.md`)) {
      writeFileSync(
        join(root, dir, 'CHANGELOG.md'),
        `# ${name}\n\n## ${version}\n\n- First release.\n`,
      );
    }
  }
  for (const [dir, edit] of Object.entries(packages)) {
    const file = join(root, dir, 'package.json');
    const json = readJson(file);
    edit(json);
    writeFileSync(file, JSON.stringify(json, null, 2));
  }
  for (const [name, frontmatter] of Object.entries(changesets)) {
    writeFileSync(
      join(root, '.changeset', `${name}.md`),
      `---\n${frontmatter}\n---\n\nA change.\n`,
    );
  }
  return root;
}

async function releaseCheck(args: string[]) {
  try {
    const { stdout, stderr } = await exec(process.execPath, [check, ...args], { cwd: repository });
    return { code: 0, output: stdout + stderr, stdout };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { code, output: stdout + stderr, stdout };
  }
}

const checkFixture = (fixture: Fixture, ...args: string[]) =>
  releaseCheck(['--root', makeFixture(fixture), ...args]);

afterAll(() => {
  for (const root of fixtures) rmSync(root, { recursive: true, force: true });
});

describe('npm run release:check', { timeout: 30_000 }, () => {
  it('passes on this repository', async () => {
    const { stdout } = await exec('npm', ['run', 'release:check', '--silent'], { cwd: repository });
    const spec = readFileSync(join(repository, 'openapi', 'openapi.yaml'), 'utf8');
    const infoVersion = /^ {2}version: (\S+)$/m.exec(spec)?.[1];
    expect(stdout).toContain(`✔ release:check: contract ${infoVersion} = @institution-api/types`);
  });

  it('passes on a copy of it, so the fixtures below fail for their edit alone', async () => {
    const { code, output } = await checkFixture({});
    expect(output).toMatch(/✔ release:check/);
    expect(code).toBe(0);
  });

  it('fails when info.version and the types version disagree', async () => {
    const { code, output } = await checkFixture({ infoVersion: '2.0.0' });
    expect(output).toMatch(
      /info\.version is 2\.0\.0, but no pending changeset names @institution-api\/types, which is 1\.0\.0/,
    );
    expect(code).toBe(1);
  });

  it('accepts a major info.version with major changesets of the types and the client', async () => {
    const { code, output } = await checkFixture({
      infoVersion: '2.0.0',
      changesets: {
        breaking: '"@institution-api/types": major\n"@institution-api/client": minor',
      },
    });
    expect(output).toMatch(/✔ release:check: contract 2\.0\.0/);
    expect(code).toBe(0);
  });

  it('fails when the changesets give the types another version than info.version', async () => {
    const { code, output } = await checkFixture({
      infoVersion: '2.0.0',
      changesets: { addition: '"@institution-api/types": minor' },
    });
    expect(output).toMatch(
      /the pending changesets take @institution-api\/types from 1\.0\.0 to 1\.1\.0/,
    );
    expect(code).toBe(1);
  });

  it('fails when a major of the types is not a breaking release of the client', async () => {
    const { code, output } = await checkFixture({
      infoVersion: '2.0.0',
      changesets: { breaking: '"@institution-api/types": major' },
    });
    expect(output).toMatch(
      /@institution-api\/types goes to 2\.0\.0, a major release, but @institution-api\/client only to 0\.1\.1/,
    );
    expect(code).toBe(1);
  });

  it("fails when a sibling range is not the sibling's version", async () => {
    const { code, output } = await checkFixture({
      packages: {
        'packages/client': (json) => {
          json.dependencies['@institution-api/types'] = '^1.0.0';
        },
      },
    });
    expect(output).toMatch(
      /packages\/client\/package\.json: dependencies\.@institution-api\/types is "\^1\.0\.0", but @institution-api\/types is 1\.0\.0/,
    );
    expect(code).toBe(1);
  });

  it('fails when a published package has no changelog, or does not ship it', async () => {
    const { code, output } = await checkFixture({
      without: ['packages/signing/CHANGELOG.md'],
      packages: {
        'packages/types': (json) => {
          json.files = json.files.filter((file: string) => file !== 'CHANGELOG.md');
        },
      },
    });
    expect(output).toMatch(/packages\/signing\/CHANGELOG\.md is missing/);
    expect(output).toMatch(/packages\/types\/package\.json: "files" must list CHANGELOG\.md/);
    expect(code).toBe(1);
  });

  it('fails when a published package lacks what a registry shows and a stranger needs', async () => {
    const { code, output } = await checkFixture({
      without: ['LICENSE'],
      packages: {
        'packages/mock': (json) => {
          delete json.description;
          json.repository.directory = 'packages/elsewhere';
          json.license = 'ISC';
          delete json.engines;
        },
      },
    });
    expect(output).toMatch(/LICENSE is missing at the root/);
    expect(output).toMatch(/packages\/mock\/package\.json: "description" is missing/);
    expect(output).toMatch(
      /packages\/mock\/package\.json: "repository" must be \{"type":"git","url":"[^"]+","directory":"packages\/mock"\}/,
    );
    expect(output).toMatch(
      /packages\/mock\/package\.json: "license" is ISC, the repository's is MIT/,
    );
    expect(output).toMatch(/packages\/mock\/package\.json: engines\.node must be the repository's/);
    expect(code).toBe(1);
  });

  it('fails when a workspace that is not published is not private', async () => {
    const { code, output } = await checkFixture({
      packages: {
        'apps/docs': (json) => {
          delete json.private;
        },
      },
    });
    expect(output).toMatch(
      /apps\/docs\/package\.json: @institution-api\/docs .* must be "private": true/,
    );
    expect(code).toBe(1);
  });

  it('fails when a private workspace pins a published sibling its next version leaves', async () => {
    const { code, output } = await checkFixture({
      infoVersion: '2.0.0',
      changesets: {
        breaking: '"@institution-api/types": major\n"@institution-api/client": minor',
      },
      packages: {
        'apps/reference-server': (json) => {
          json.dependencies['@institution-api/types'] = '1.0.0';
        },
      },
    });
    expect(output).toMatch(
      /apps\/reference-server\/package\.json: dependencies\.@institution-api\/types is "1\.0\.0", which @institution-api\/types 2\.0\.0 does not satisfy; a private workspace depends on its published siblings with "\*"/,
    );
    expect(code).toBe(1);
  });

  it('accepts a package never released yet, whose changeset plans its first version', async () => {
    const root = makeFixture({
      changesets: { first: '"@institution-api/conformance": minor' },
      packages: {
        'packages/conformance': (json) => {
          json.version = '0.0.0';
        },
      },
    });
    const { [CONFORMANCE]: _never, ...released } = FIXTURE_VERSIONS;
    writeFileSync(join(root, 'released', 'versions.json'), JSON.stringify(released));
    const { code, output } = await releaseCheck(['--root', root]);
    expect(output).toMatch(/✔ release:check/);
    expect(code).toBe(0);
    // --json writes the plan to stdout; Changesets may warn on stderr (here: the mock's development
    // dependency on the conformance suite is ahead of its 0.0.0).
    const plan = JSON.parse((await releaseCheck(['--root', root, '--json'])).stdout);
    expect(plan.planned[CONFORMANCE]).toBe('0.1.0');
    expect(plan.breaking[CONFORMANCE]).toBe(false);
  });

  it('with --release, refuses to publish while changesets are pending', async () => {
    const { code, output } = await checkFixture(
      { infoVersion: '1.0.1', changesets: { fix: '"@institution-api/types": patch' } },
      '--release',
    );
    expect(output).toMatch(
      /1 changeset\(s\) are pending \(fix\): run npm run release:version first/,
    );
    expect(code).toBe(1);
  });

  it('agrees with what changeset version (the real CLI) then writes', async () => {
    const root = makeFixture({
      infoVersion: '1.1.0',
      changesets: { nickname: '"@institution-api/types": minor' },
    });
    // the changelog generator is resolved from the checkout, as in the repository
    symlinkSync(join(repository, 'node_modules'), join(root, 'node_modules'));
    const changeset = join(repository, 'node_modules', '@changesets', 'cli', 'bin.js');
    await exec(process.execPath, [changeset, 'version'], { cwd: root });

    const json = (name: string) => readJson(join(root, 'packages', name, 'package.json'));
    expect(json('types').version).toBe('1.1.0');
    // the client follows as a patch, its range rewritten exactly
    expect(json('client').version).toBe('0.1.1');
    expect(json('client').dependencies['@institution-api/types']).toBe('1.1.0');
    expect(json('signing').version).toBe('0.1.0');
    // the runtime reads the contract's schemas: it follows too, and the types stay the contract alone
    expect(json('runtime').version).toBe('0.1.1');
    expect(json('runtime').dependencies['@institution-api/types']).toBe('1.1.0');
    expect(json('conformance').version).toBe('0.1.1');
    expect(json('conformance').dependencies['@institution-api/types']).toBe('1.1.0');
    const changelog = readFileSync(join(root, 'packages', 'types', 'CHANGELOG.md'), 'utf8');
    expect(changelog).toMatch(
      /^# @institution-api\/types\n\n## 1\.1\.0\n\n### Minor Changes\n\n- A change\.\n\n## 1\.0\.0\n/,
    );
    expect(readFileSync(join(root, 'packages', 'client', 'CHANGELOG.md'), 'utf8')).toMatch(
      /## 0\.1\.1\n\n### Patch Changes\n\n- Updated dependencies\n {2}- @institution-api\/types@1\.1\.0/,
    );
    const { code, output } = await releaseCheck(['--root', root]);
    expect(output).toMatch(/✔ release:check: contract 1\.1\.0/);
    expect(code).toBe(0);
  });
});
