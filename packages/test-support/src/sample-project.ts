import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const cacheDir = fileURLToPath(new URL('../node_modules/.cache/code-samples/', import.meta.url));

/**
 * A throwaway directory set up like a reader's project after `npm install @institution-api/client`:
 * inside the repository, so `import '@institution-api/client'` resolves to the workspace package.
 */
export async function createSampleProject(): Promise<{ dir: string; remove: () => Promise<void> }> {
  await mkdir(cacheDir, { recursive: true });
  const dir = await mkdtemp(cacheDir);
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}
