import { execFile as execFileCallback } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const execFile = promisify(execFileCallback);
const packageDir = fileURLToPath(new URL('../../', import.meta.url));
const repositoryDir = resolve(packageDir, '../..');

/** TypeScript files compiled to JavaScript that a child `node` process can run. */
export interface CompiledSources {
  /** The compiled .js path of a source, given relative to the package (e.g. 'src/x.ts'). */
  path(source: string): string;
  remove(): Promise<void>;
}

/**
 * Compiles the given sources (and what they import) with the package's build settings into a
 * temporary folder, for tests that must run code in a separate process (a crash, a command). Only
 * these files are compiled, so the test does not depend on the rest of the package building, and
 * nothing is written to dist/. The folder gets the package's migrations/ and node_modules, and the
 * repository's node_modules above them, so that imports resolve as they do in the package.
 */
export async function compileForChild(sources: string[]): Promise<CompiledSources> {
  const dir = await mkdtemp(join(tmpdir(), 'reference-server-child-'));
  const outDir = join(dir, 'out');
  const tsconfig = join(dir, 'tsconfig.json');
  await writeFile(
    tsconfig,
    JSON.stringify({
      extends: join(packageDir, 'tsconfig.build.json'),
      compilerOptions: {
        rootDir: packageDir,
        outDir,
        declaration: false,
        declarationMap: false,
        sourceMap: false,
        // The temporary folder has no node_modules above it to find @types in.
        typeRoots: [join(repositoryDir, 'node_modules/@types')],
      },
      files: sources.map((source) => join(packageDir, source)),
      include: [],
    }),
  );
  try {
    await execFile(join(repositoryDir, 'node_modules/.bin/tsc'), ['-p', tsconfig]);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    const { stdout } = error as { stdout?: string };
    throw new Error(`tsc failed:\n${stdout ?? (error as Error).message}`);
  }
  await symlink(join(packageDir, 'migrations'), join(outDir, 'migrations'));
  // As in the repository: the package's own node_modules (versions npm could not hoist) first,
  // then the workspace's, one folder up.
  if (existsSync(join(packageDir, 'node_modules'))) {
    await symlink(join(packageDir, 'node_modules'), join(outDir, 'node_modules'));
  }
  await symlink(join(repositoryDir, 'node_modules'), join(dir, 'node_modules'));
  return {
    path: (source) => join(outDir, source.replace(/\.ts$/, '.js')),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
