/**
 * A copy of this checkout with a changed spec, built: for tests that prove what a change of the
 * contract alone does to the server, the client, the import and the conformance suite, as a
 * designer would make it, with no other edit. The workspaces the spec reaches (the spec, the
 * types, the client, the CLI, the conformance suite, the reference server, the mock) are copied into a temporary
 * directory, the edit is made to the copy's `openapi/`, and each is built there as `npm run
 * build` builds it. The copy's `node_modules` links every installed package of this checkout,
 * except those workspaces, which are the copy's; the docs page and the signing package, which the
 * spec does not change, are this checkout's.
 */
import { execFile as execFileCallback } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const execFile = promisify(execFileCallback);

/** The root of this checkout. */
export const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** The workspaces copied and built, in build order: each depends only on those before it. */
const builtWorkspaces = [
  ['openapi', '@institution-api/openapi'],
  ['packages/types', '@institution-api/types'],
  ['packages/runtime', '@institution-api/runtime'],
  ['packages/client', '@institution-api/client'],
  ['packages/cli', '@institution-api/cli'],
  ['packages/conformance', '@institution-api/conformance'],
  ['apps/reference-server', '@institution-api/reference-server'],
  ['packages/mock', '@institution-api/mock'],
] as const;

/** The workspaces the copy uses as they are in this checkout. */
const linkedWorkspaces = [
  ['packages/signing', '@institution-api/signing'],
  ['apps/docs', '@institution-api/docs'],
  ['packages/test-support', '@institution-api/test-support'],
] as const;

/** Files of the root the builds read, and the repository's scripts, which tests import. */
const rootFiles = ['package.json', 'tsconfig.base.json', 'redocly.yaml', 'biome.json', 'scripts'];

/** What a copy leaves out: installs, builds, generated files, data, reports. */
const skipped = new Set([
  'node_modules',
  'dist',
  '.turbo',
  'generated',
  'data',
  'reports',
  'templates',
  'coverage',
]);

/** A built copy of the checkout with a changed spec. */
export interface SpecVariant {
  /** The copy's root. */
  root: string;
  /** The copy's reference server entry point (for startReferenceServer's `main`). */
  serverMain: string;
  /** A module of the copy's built client, conformance suite, types or mock, as a file URL. */
  module(workspace: 'client' | 'conformance' | 'types' | 'mock', file?: string): string;
  /** The copy's command-line programs, to run with `node`. */
  bins: { cli: string; conformance: string };
  /** Removes the copy. */
  remove(): Promise<void>;
}

/**
 * Copies the checkout, lets `edit` change the copy's spec (it gets the copy's `openapi/`
 * directory), and builds the copy. Takes a minute or two; a build that fails throws with its
 * output.
 */
export async function buildSpecVariant(
  edit: (openapiDir: string) => Promise<void>,
): Promise<SpecVariant> {
  const root = await mkdtemp(join(tmpdir(), 'institution-api-spec-variant-'));
  const remove = () => rm(root, { recursive: true, force: true });
  try {
    for (const file of rootFiles) {
      await cp(join(repositoryRoot, file), join(root, file), { recursive: true });
    }
    for (const [dir] of builtWorkspaces) {
      await cp(join(repositoryRoot, dir), join(root, dir), {
        recursive: true,
        filter: (source) => !skipped.has(basename(source)),
      });
    }
    await linkModules(root);
    await edit(join(root, 'openapi'));
    for (const [dir, name] of builtWorkspaces) {
      await execFile('npm', ['run', 'build', '--silent'], {
        cwd: join(root, dir),
        env: { ...process.env, REDOCLY_TELEMETRY: 'off' },
        maxBuffer: 16 * 1024 * 1024,
      }).catch((error: { stdout?: string; stderr?: string }) => {
        throw new Error(
          `building ${name} of the spec variant failed:\n${error.stdout}${error.stderr}`,
        );
      });
    }
  } catch (error) {
    await remove();
    throw error;
  }
  return {
    root,
    serverMain: join(root, 'apps/reference-server/dist/main.js'),
    module: (workspace, file = 'index.js') =>
      new URL(`file://${join(root, 'packages', workspace, 'dist', file)}`).href,
    bins: {
      cli: join(root, 'packages/cli/bin/institution-api.js'),
      conformance: join(root, 'packages/conformance/bin/institution-api-conformance.js'),
    },
    remove,
  };
}

/**
 * The copy's node_modules: a link to each package this checkout installed, the workspaces' own
 * (`@institution-api/*`) pointing into the copy for those it builds; and each copied workspace's
 * own node_modules linked to this checkout's.
 */
async function linkModules(root: string) {
  const installed = join(repositoryRoot, 'node_modules');
  const modules = join(root, 'node_modules');
  await mkdir(join(modules, '@institution-api'), { recursive: true });
  for (const entry of await readdir(installed)) {
    if (entry === '@institution-api') continue;
    await symlink(join(installed, entry), join(modules, entry));
  }
  for (const [dir, name] of builtWorkspaces) {
    await symlink(join(root, dir), join(modules, name));
    const own = join(repositoryRoot, dir, 'node_modules');
    const entries = await readdir(own).catch(() => []);
    if (entries.length > 0) await symlink(own, join(root, dir, 'node_modules'));
  }
  for (const [dir, name] of linkedWorkspaces) {
    await symlink(join(repositoryRoot, dir), join(modules, name));
  }
}
