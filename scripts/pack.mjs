#!/usr/bin/env node
// @ts-check
// `npm run pack` (after the build it runs): the published packages as tarballs, exactly
// what `npm publish` would upload, in one folder (dist/packages/ unless --out-dir says
// otherwise), so a project outside this repository can install the client before any release:
//
//   npm install /path/to/institution-api/dist/packages/*.tgz
//
// All of them at once: the client's tarball alone makes npm look for its siblings in the registry.
// Older tarballs are removed first, so the glob above never matches two versions of a package.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { PUBLISHABLE, readWorkspaces, repositoryRoot } from './release/workspace.mjs';

const { values: options } = parseArgs({
  options: { 'out-dir': { type: 'string', default: join(repositoryRoot, 'dist', 'packages') } },
});
const outDir = resolve(options['out-dir']);

const workspaces = readWorkspaces(repositoryRoot).filter(({ json }) =>
  PUBLISHABLE.includes(json.name),
);
const unbuilt = workspaces.filter(({ dir }) => !existsSync(join(repositoryRoot, dir, 'dist')));
if (unbuilt.length > 0) {
  console.error(
    `pack: build first (npm run pack builds them): no dist/ in ${unbuilt.map(({ dir }) => dir).join(', ')}`,
  );
  process.exit(1);
}

mkdirSync(outDir, { recursive: true });
for (const name of readdirSync(outDir)) {
  if (name.endsWith('.tgz')) rmSync(join(outDir, name));
}
const packed = JSON.parse(
  execFileSync(
    'npm',
    [
      'pack',
      '--json',
      '--silent',
      '--pack-destination',
      outDir,
      ...workspaces.flatMap(({ json }) => ['--workspace', json.name]),
    ],
    { cwd: repositoryRoot, encoding: 'utf8' },
  ),
);
for (const { name, version, filename, size, entryCount } of packed) {
  console.log(
    `${name}@${version}: ${relative(process.cwd(), join(outDir, filename))} (${entryCount} files, ${size} bytes)`,
  );
}
console.log(`\nIn your project: npm install ${join(outDir, '*.tgz')}`);
