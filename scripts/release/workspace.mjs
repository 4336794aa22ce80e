// @ts-check
// What the release scripts and their tests read from a checkout: the workspaces and their
// versions, the contract's info.version, the versions the pending changesets will give, and the
// record of the last release (released/). One module, so every check reads them the same way.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getReleasePlan } from '@changesets/get-release-plan';
import { parse } from 'yaml';

/** The repository this script lives in. */
export const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The packages that are published to the registry; every other workspace stays private. */
export const PUBLISHABLE = [
  '@institution-api/types',
  '@institution-api/runtime',
  '@institution-api/signing',
  '@institution-api/client',
  '@institution-api/cli',
  '@institution-api/conformance',
  '@institution-api/mock',
];
/** The package whose version IS the contract's version (info.version). */
export const CONTRACT_PACKAGE = '@institution-api/types';
/** The package whose consumer code is snapshotted at each release (released/client-consumer.ts). */
export const CLIENT_PACKAGE = '@institution-api/client';

/**
 * A workspace's manifest, as far as the release scripts read it.
 *
 * @typedef {{
 *   name: string;
 *   version: string;
 *   private?: boolean;
 *   description?: string;
 *   license?: string;
 *   engines?: Record<string, string>;
 *   files?: string[];
 *   repository?: { type?: string; url?: string; directory?: string };
 *   publishConfig?: { access?: string; registry?: string };
 *   dependencies?: Record<string, string>;
 *   devDependencies?: Record<string, string>;
 *   peerDependencies?: Record<string, string>;
 *   optionalDependencies?: Record<string, string>;
 *   workspaces?: string[];
 * }} Manifest
 */
/** A workspace: its folder (from the root, `packages/client`) and its manifest. @typedef {{ dir: string; json: Manifest }} Workspace */

/** @param {string} file @returns {any} */
const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

/**
 * Every workspace of the checkout at `root`, from the root package.json's `workspaces` globs
 * (only the `dir/*` and `dir` forms this repository uses).
 *
 * @param {string} root
 * @returns {Workspace[]}
 */
export function readWorkspaces(root) {
  /** @type {string[]} */
  const workspaces = readJson(join(root, 'package.json')).workspaces;
  const dirs = workspaces.flatMap((pattern) => {
    if (!pattern.endsWith('/*')) return [pattern];
    const parent = pattern.slice(0, -2);
    return readdirNames(join(root, parent)).map((name) => `${parent}/${name}`);
  });
  return dirs
    .filter((dir) => existsSync(join(root, dir, 'package.json')))
    .map((dir) => ({ dir, json: readJson(join(root, dir, 'package.json')) }));
}

/** @param {string} dir */
function readdirNames(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/** `info.version` of the working spec (openapi/openapi.yaml). @param {string} root @returns {string} */
export function readInfoVersion(root) {
  return parse(readFileSync(join(root, 'openapi', 'openapi.yaml'), 'utf8')).info.version;
}

/**
 * The record of the last release: released/versions.json, or undefined before the first one.
 *
 * @param {string} root
 * @returns {Record<string, string> | undefined}
 */
export function readReleasedVersions(root) {
  const file = join(root, 'released', 'versions.json');
  return existsSync(file) ? readJson(file) : undefined;
}

/**
 * Each publishable package's version now, and the version the pending changesets will give it
 * (`changeset version` computes the same plan: the highest bump among its changesets, dependents
 * whose ranges it leaves bumped as a patch).
 *
 * @param {string} root
 * @returns {Promise<{ current: Record<string, string>; planned: Record<string, string>; changesets: string[] }>}
 */
export async function plannedVersions(root) {
  const current = Object.fromEntries(
    readWorkspaces(root)
      .filter(({ json }) => PUBLISHABLE.includes(json.name))
      .map(({ json }) => [json.name, json.version]),
  );
  const planned = { ...current };
  const plan = await getReleasePlan(root);
  for (const release of plan.releases) {
    if (release.name in planned && release.type !== 'none')
      planned[release.name] = release.newVersion;
  }
  return { current, planned, changesets: plan.changesets.map((changeset) => changeset.id) };
}
