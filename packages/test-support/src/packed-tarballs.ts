/**
 * The published packages as tarballs, exactly what `npm publish` would upload: what `npm run pack`
 * writes to dist/packages/ (scripts/pack.mjs), packed once per run by turbo's `//#pack:tarballs`
 * task (cached on the packages' builds) and read by every test that installs them.
 */
import { execFile as execFileCallback } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const execFile = promisify(execFileCallback);
const repository = fileURLToPath(new URL('../../../', import.meta.url));

/** Where `npm run pack` writes the tarballs. */
export const packedTarballsDir = join(repository, 'dist', 'packages');

/**
 * The published packages, whose files the tarballs are made of: every package that is not
 * private, as the release scripts' PUBLISHABLE list says (scripts/release/workspace.mjs), each with
 * the file name `npm pack` gives its tarball.
 */
const publishedPackages = readdirSync(join(repository, 'packages'))
  .map((name) => join(repository, 'packages', name))
  .filter((dir) => existsSync(join(dir, 'package.json')))
  .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) }))
  .filter(({ manifest }) => manifest.private !== true)
  .map(({ dir, manifest }) => ({
    dir,
    tarball: `${String(manifest.name).replace(/^@/, '').replace('/', '-')}-${manifest.version}.tgz`,
  }));

/** The newest modification time of a file under `path` (node_modules and tests left out). */
function newestChange(path: string): number {
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(path)) {
    if (entry === 'node_modules' || entry === 'test' || entry === '.turbo') continue;
    newest = Math.max(newest, newestChange(join(path, entry)));
  }
  return newest;
}

/** When `file` was written, or undefined when it is not there. */
const writtenAt = (file: string) => (existsSync(file) ? statSync(file).mtimeMs : undefined);

/**
 * The folder of the packed tarballs, one per published package. Under `npm test`, turbo packed
 * them before the tests; a test run another way (`npx vitest`) packs them here when they are
 * missing or older than a file of their package (its build or its manifest), so it never installs
 * a stale package. Each package is compared with its own tarball: packing writes a package's
 * LICENSE (its prepack) after the tarballs packed before it, and against the oldest tarball every
 * test would pack again, under the feet of the tests installing them.
 */
export async function packedTarballs(): Promise<string> {
  const tarballs = existsSync(packedTarballsDir)
    ? readdirSync(packedTarballsDir).filter((file) => file.endsWith('.tgz'))
    : [];
  const fresh =
    tarballs.length === publishedPackages.length &&
    publishedPackages.every(({ dir, tarball }) => {
      const packedAt = writtenAt(join(packedTarballsDir, tarball));
      return packedAt !== undefined && newestChange(dir) <= packedAt;
    });
  if (!fresh) {
    await execFile(process.execPath, [join(repository, 'scripts', 'pack.mjs')], {
      cwd: repository,
    });
  }
  return packedTarballsDir;
}
