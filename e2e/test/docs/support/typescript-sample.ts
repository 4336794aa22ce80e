import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { type RunResult, run } from '@institution-api/test-support/run-program';

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

/** The compiles done, by directory, name and text: a sample run twice is compiled once. */
const compiles = new Map<string, Promise<RunResult>>();

/**
 * Writes a TypeScript sample to `<dir>/<name>.mts`, compiles it with `tsc` (strict, NodeNext, as a
 * reader's project would) against the workspace's `@institution-api/client`, and, when it
 * compiles, runs the output with Node in `env`. `compiled` holds tsc's diagnostics. The same text
 * in the same directory is compiled once (each `tsc` takes seconds on a shared machine).
 */
export async function compileAndRun(
  { name, source }: { name: string; source: string },
  dir: string,
  env: NodeJS.ProcessEnv,
): Promise<{ compiled: RunResult; ran: RunResult | undefined }> {
  const key = JSON.stringify([dir, name, source]);
  let compiling = compiles.get(key);
  if (!compiling) {
    compiling = compile(name, source, dir);
    compiles.set(key, compiling);
  }
  const compiled = await compiling;
  if (compiled.code !== 0) return { compiled, ran: undefined };
  const ran = await run(process.execPath, [join(dir, 'out', `${name}.mjs`)], {
    cwd: dir,
    env: { ...env, PATH: process.env.PATH },
  });
  return { compiled, ran };
}

async function compile(name: string, source: string, dir: string): Promise<RunResult> {
  const file = join(dir, `${name}.mts`);
  await writeFile(file, source);
  return run(
    process.execPath,
    [
      tsc,
      '--strict',
      '--noUncheckedIndexedAccess',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--target',
      'es2022',
      '--lib',
      'es2023',
      '--types',
      'node',
      '--skipLibCheck',
      '--outDir',
      join(dir, 'out'),
      file,
    ],
    { cwd: dir, env: { PATH: process.env.PATH } },
  );
}
