/**
 * `npm run typecheck` checks the repository's JavaScript as strictly as its TypeScript: every
 * `.mjs`, `.js` and `.cjs` file is in a tsconfig that a `typecheck` script runs with `checkJs`
 * (the root's for scripts/ and deploy/, each workspace's for its own), but for the few listed
 * below with their reason. A new JavaScript file outside them fails here until a tsconfig
 * checks it.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { repository } from '../workspaces.js';
import { sourceFiles, workspaceFolders } from './support/source-files.js';

/** JavaScript not type-checked, each with why. */
const unchecked: [RegExp, string][] = [
  [
    /^apps\/docs\/scripts\/lib\/postman\//,
    "scripts of Postman's sandbox (its globals pm and CryptoJS): run by Newman in e2e/test/spec/postman.system.test.ts",
  ],
  [
    /^e2e\/test\/diagnosis\/mistakes\//,
    "integrators' own code, their mistakes included, as they write it in each language: run by e2e/test/diagnosis/mistakes.system.test.ts",
  ],
  [
    /^e2e\/test\/spec\/consumers\/(hey-api|orval)\/.*\.config\.mjs$/,
    "the generators' own configuration files, in the shape each generator reads",
  ],
  [
    /^(bench|apps\/reference-server\/bench|packages\/client\/bench)\/|^apps\/reference-server\/test\/storage\/measure-transactions\.mjs$|^packages\/client\/(scripts|consumer)\//,
    'the benchmarks and measurements of the hot path and the client (npm run bench), not typed yet',
  ],
];

/** The tsconfig files `npm run typecheck` uses: the root's and each workspace's `tsc` ones. */
function typecheckedConfigs(): string[] {
  const configs = ['tsconfig.json'];
  for (const folder of workspaceFolders) {
    const { scripts = {} } = JSON.parse(
      readFileSync(join(repository, folder, 'package.json'), 'utf8'),
    ) as { scripts?: Record<string, string> };
    for (const match of (scripts.typecheck ?? '').matchAll(/tsc(?: --noEmit)?(?: -p (\S+))?/g)) {
      const target = join(folder, match[1] ?? 'tsconfig.json');
      configs.push(target.endsWith('.json') ? target : join(target, 'tsconfig.json'));
    }
  }
  return configs;
}

/** The JavaScript files a tsconfig checks (`checkJs`), from the repository's root. */
function checkedJavaScript(config: string): string[] {
  const file = join(repository, config);
  const parsed = ts.getParsedCommandLineOfConfigFile(
    file,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  if (!parsed?.options.checkJs) return [];
  return parsed.fileNames
    .filter((name) => /\.[cm]?js$/.test(name))
    .map((name) => relative(repository, name).split('\\').join('/'))
    .filter((name) => !name.startsWith('..') && dirname(name) !== '.');
}

describe('type-checked JavaScript', () => {
  const checked = new Set(typecheckedConfigs().flatMap(checkedJavaScript));
  const javascript = sourceFiles(['.mjs', '.js', '.cjs']).map((file) => file.path);

  it('covers the repository scripts, the release gate among them', () => {
    for (const file of [
      'scripts/release/check.mjs',
      'scripts/release/version.mjs',
      'scripts/release/publish.mjs',
      'scripts/contract-diff.mjs',
      'scripts/lib/contract-changes.mjs',
      'deploy/stage-runtime.mjs',
      'e2e/test/lib/dockerfile.mjs',
    ]) {
      expect(checked, file).toContain(file);
    }
  });

  it('leaves out only the files listed with their reason', () => {
    const left = javascript.filter(
      (file) => !checked.has(file) && !unchecked.some(([pattern]) => pattern.test(file)),
    );
    expect(left).toEqual([]);
  });
});
