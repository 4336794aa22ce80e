/**
 * The fast tier's guard (a setup file of its vitest project, see test-tiers.ts): the fast tier
 * runs in-process, so starting a process from one of its tests fails that test at once, naming
 * the program and saying where the test belongs (a `*.system.test.ts` file, CONTRIBUTING.md).
 * Worker threads stay allowed: they are part of one process (the server's checkpointer is one).
 */
import { createRequire, syncBuiltinESMExports } from 'node:module';

/** The module object itself, whose functions the named imports are synced from. */
const childProcess = createRequire(import.meta.url)('node:child_process') as Record<
  string,
  unknown
>;

const starters = [
  'spawn',
  'spawnSync',
  'exec',
  'execSync',
  'execFile',
  'execFileSync',
  'fork',
] as const;

for (const name of starters) {
  const refuse = (file: unknown) => {
    throw new Error(
      `The fast tier starts no process, but a test called child_process.${name}(${JSON.stringify(String(file))}): ` +
        'make the test in-process, or move it to a *.system.test.ts file (CONTRIBUTING.md, "Where a test goes").',
    );
  };
  Object.defineProperty(childProcess, name, { value: refuse, configurable: true, writable: true });
}
// `import { execFile } from 'node:child_process'` reads these too.
syncBuiltinESMExports();
