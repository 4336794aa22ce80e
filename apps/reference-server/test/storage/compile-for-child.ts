import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const packageDir = fileURLToPath(new URL('../../', import.meta.url));
const repositoryDir = resolve(packageDir, '../..');

/** TypeScript files compiled to JavaScript that a child `node` process can run. */
export interface CompiledSources {
  /** The compiled .js path of a source, given relative to the package (e.g. 'src/x.ts'). */
  path(source: string): string;
  remove(): Promise<void>;
}

/**
 * The package's emit settings (tsconfig.build.json), for one file at a time: the ES modules that
 * NodeNext emits in this `"type": "module"` package (a lone file has no package.json to tell).
 */
const compilerOptions: ts.CompilerOptions = (() => {
  const file = join(packageDir, 'tsconfig.build.json');
  const { config } = ts.readConfigFile(file, ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, packageDir, undefined, file);
  return {
    ...options,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    rootDir: undefined,
    outDir: undefined,
    sourceMap: false,
    declaration: false,
    declarationMap: false,
  };
})();

/**
 * Compiles the given sources (and the relative imports they reach) to JavaScript with the
 * package's build settings, into a temporary folder, for tests that must run code in a separate
 * process (a crash, a command). Only these files are compiled, so the test does not depend on the
 * rest of the package building, and nothing is written to dist/. Each file is transpiled on its
 * own, in this process (the type check is `npm run typecheck`'s), which takes milliseconds where a
 * `tsc` process took seconds. The folder gets the package's migrations/ and node_modules, and the
 * repository's node_modules above them, so that imports resolve as they do in the package.
 */
export async function compileForChild(sources: string[]): Promise<CompiledSources> {
  const dir = await mkdtemp(join(tmpdir(), 'reference-server-child-'));
  const outDir = join(dir, 'out');
  const pending = sources.map((source) => join(packageDir, source));
  const seen = new Set<string>();
  try {
    for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
      if (seen.has(file)) continue;
      seen.add(file);
      const text = await readFile(file, 'utf8');
      // `./x.js` in a source is `./x.ts` beside it (NodeNext): follow the relative imports.
      for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) {
        if (/^\.\.?\//.test(fileName) && fileName.endsWith('.js')) {
          pending.push(resolve(dirname(file), fileName.replace(/\.js$/, '.ts')));
        }
      }
      const { outputText, diagnostics } = ts.transpileModule(text, {
        compilerOptions,
        fileName: file,
        reportDiagnostics: true,
      });
      if (diagnostics?.length) {
        throw new Error(
          `${file} does not compile:\n${ts.formatDiagnostics(diagnostics, ts.createCompilerHost({}))}`,
        );
      }
      const out = join(outDir, relative(packageDir, file).replace(/\.ts$/, '.js'));
      await mkdir(dirname(out), { recursive: true });
      await writeFile(out, outputText);
    }
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
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
