import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const cacheDir = fileURLToPath(new URL('../../node_modules/.cache/code-samples/', import.meta.url));

/**
 * A throwaway directory set up like a reader's project after `npm install @institution-api/client`:
 * inside the repository, so `import '@institution-api/client'` resolves to the workspace package,
 * and with the package's `institution-api` bin in `node_modules/.bin`, so `npx institution-api`
 * runs it (npm links a bin only when its file exists at install time, and the client's is built
 * later, so the test links it itself).
 */
export async function createSampleProject(): Promise<{ dir: string; remove: () => Promise<void> }> {
  await mkdir(cacheDir, { recursive: true });
  const dir = await mkdtemp(cacheDir);
  const manifestFile = createRequire(import.meta.url).resolve(
    '@institution-api/client/package.json',
  );
  const manifest = JSON.parse(await readFile(manifestFile, 'utf8')) as {
    bin: Record<string, string>;
  };
  const binDir = join(dir, 'node_modules', '.bin');
  await mkdir(binDir, { recursive: true });
  for (const [name, file] of Object.entries(manifest.bin)) {
    const target = join(dirname(manifestFile), file);
    const shim = join(binDir, name);
    await writeFile(shim, `#!/bin/sh\nexec "${process.execPath}" "${target}" "$@"\n`);
    await chmod(shim, 0o755);
  }
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}
