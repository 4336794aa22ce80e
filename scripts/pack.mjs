#!/usr/bin/env node
// @ts-check
// `npm run pack` (after the build it runs): the published packages as tarballs, exactly
// what `npm publish` would upload, in one folder (dist/packages/ unless --out-dir says
// otherwise), so a project outside this repository can install the client before any release:
//
//   npm install /path/to/institution-api/dist/packages/*.tgz
//
// All of them at once: the client's tarball alone makes npm look for its siblings in the registry.
// Older tarballs are removed, so the glob above never matches two versions of a package. The new
// ones are packed in a folder of their own beside it, then renamed into it, so that a test
// installing them while another packs never reads a tarball half-written or missing, nor anything
// but tarballs there.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
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
const packing = mkdtempSync(join(dirname(outDir), '.packing-'));
/** @type {{ name: string, version: string, filename: string, size: number, entryCount: number }[]} */
let packed;
try {
  packed = JSON.parse(
    execFileSync(
      'npm',
      [
        'pack',
        '--json',
        '--silent',
        '--pack-destination',
        packing,
        ...workspaces.flatMap(({ json }) => ['--workspace', json.name]),
      ],
      { cwd: repositoryRoot, encoding: 'utf8' },
    ),
  );
  const filenames = packed.map(({ filename }) => filename);
  for (const name of readdirSync(outDir)) {
    if (name.endsWith('.tgz') && !filenames.includes(name)) rmSync(join(outDir, name));
  }
  for (const filename of filenames) renameSync(join(packing, filename), join(outDir, filename));
} finally {
  rmSync(packing, { recursive: true, force: true });
}
for (const { name, version, filename, size, entryCount } of packed) {
  console.log(
    `${name}@${version}: ${relative(process.cwd(), join(outDir, filename))} (${entryCount} files, ${size} bytes)`,
  );
}
console.log(`\nIn your project: npm install ${join(outDir, '*.tgz')}`);
