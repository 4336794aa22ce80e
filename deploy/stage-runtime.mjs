// @ts-check
// The image's staging of the run time (deploy/Dockerfile, build stage), after the build: writes
// into an empty directory what the server's production install and run need, and nothing else.
//
// - the root package.json, package-lock.json and .npmrc, for `npm ci` from the lockfile;
// - each workspace package the reference server needs at run time, found by following the
//   `dependencies` of its package.json (and theirs) through the workspace packages, exactly as
//   `npm pack` packs it: its package.json and its `files` (dist/, migrations/…), no sources, tests
//   or node_modules. A package the server imports but declares as a dev dependency is not staged,
//   so the server fails to start from the staged tree;
// - install-production.sh and healthcheck.mjs, which the later stages run.
//
// Usage: node deploy/stage-runtime.mjs <empty or absent directory>
// e2e/test/deploy.system.test.mjs runs this same script on a fresh copy of the repository.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const server = '@institution-api/reference-server';
/** Files of the server, relative to its package, without which it cannot start. */
const serverEntryPoints = ['dist/main.js', 'migrations/postgres', 'migrations/sqlite'];

const repository = fileURLToPath(new URL('..', import.meta.url));
const [target] = process.argv.slice(2).map((path) => resolve(path));
if (!target) fail('usage: node deploy/stage-runtime.mjs <empty or absent directory>');
if (existsSync(target) && readdirSync(target).length > 0) fail(`${target} is not empty`);

/** @param {string} path @returns {any} */
const readJson = (path) => JSON.parse(readFileSync(join(repository, path), 'utf8'));
const lockfile = readJson('package-lock.json');
/** Workspace package name → its directory, from the lockfile's links. @type {Map<string, string>} */
const workspaces = new Map(
  Object.entries(
    /** @type {Record<string, { link?: boolean; resolved: string }>} */ (lockfile.packages),
  )
    .filter(([path, entry]) => entry.link && path.startsWith('node_modules/'))
    .map(([path, entry]) => [path.slice('node_modules/'.length), entry.resolved]),
);
/** The directory of a workspace package. @param {string} name */
const directoryOf = (name) => workspaces.get(name) ?? fail(`the lockfile has no workspace ${name}`);
if (!workspaces.has(server)) fail(`the lockfile has no workspace ${server}`);

// The server and the workspace packages its run-time dependencies reach.
/** @type {string[]} */
const needed = [];
for (const queue = [server]; queue.length > 0; ) {
  const name = /** @type {string} */ (queue.shift());
  if (needed.includes(name)) continue;
  needed.push(name);
  const manifest = readJson(join(directoryOf(name), 'package.json'));
  const runtime = { ...manifest.dependencies, ...manifest.optionalDependencies };
  queue.push(...Object.keys(runtime).filter((dependency) => workspaces.has(dependency)));
}

// What npm would pack of each: its `files`, package.json, README and the like.
const packed = JSON.parse(
  execFileSync(
    'npm',
    [
      'pack',
      '--dry-run',
      '--json',
      '--ignore-scripts',
      '--loglevel=error',
      ...needed.map((name) => `--workspace=${name}`),
    ],
    { cwd: repository, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 },
  ),
);
mkdirSync(target, { recursive: true });
for (const { name, files } of /** @type {{ name: string; files: { path: string }[] }[]} */ (
  packed
)) {
  const directory = directoryOf(name);
  for (const { path } of files) copy(join(directory, path));
  const manifest = readJson(join(directory, 'package.json'));
  // Everything a package exports must be there: a package not built packs without its dist/.
  for (const file of exportedFiles(manifest.exports)) {
    if (!existsSync(join(target, directory, file))) {
      fail(`${name} exports ${file}, which is not built: run deploy/build.sh first`);
    }
  }
}
for (const file of serverEntryPoints) {
  if (!existsSync(join(target, directoryOf(server), file))) {
    fail(`${server}: ${file} is missing from what npm packs of it (its "files"), or not built`);
  }
}
for (const file of ['package.json', 'package-lock.json', '.npmrc']) {
  if (existsSync(join(repository, file))) copy(file);
}
copy('deploy/install-production.sh');
copy('deploy/healthcheck.mjs');
console.log(`staged ${needed.join(', ')} in ${target}`);

/** @param {string} path */
function copy(path) {
  const to = join(/** @type {string} */ (target), path);
  mkdirSync(dirname(to), { recursive: true });
  cpSync(join(repository, path), to, { recursive: true });
}

/**
 * The file targets of a package.json `exports` field, conditions included.
 *
 * @param {unknown} exports
 * @returns {string[]}
 */
function exportedFiles(exports) {
  if (typeof exports === 'string') return exports.includes('*') ? [] : [exports];
  if (exports === null || typeof exports !== 'object') return [];
  return Object.values(exports).flatMap(exportedFiles);
}

/** @param {string} message @returns {never} */
function fail(message) {
  console.error(`stage-runtime: ${message}`);
  process.exit(1);
}
