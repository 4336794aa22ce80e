/**
 * The tarballs every package test installs (../src/packed-tarballs.ts, scripts/pack.mjs): packed
 * once, they are found fresh and not packed again; packed again while a test lists them, that
 * test sees every package's tarball whole at every moment.
 */
import { execFile as execFileCallback } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { packedTarballs, packedTarballsDir } from '../src/packed-tarballs.ts';

const execFile = promisify(execFileCallback);
const repository = fileURLToPath(new URL('../../../', import.meta.url));

/** Each file of `dir` (tarballs only, as every test installs them all) with its size and time. */
const listing = (dir: string) =>
  Object.fromEntries(
    readdirSync(dir).map((file) => {
      const { size, mtimeMs } = statSync(join(dir, file));
      return [file, { size, mtimeMs }];
    }),
  );

it('packs once: called again with nothing changed, it finds them fresh', async () => {
  const packed = listing(await packedTarballs());
  expect(Object.keys(packed).length).toBeGreaterThan(1);
  expect(listing(await packedTarballs())).toEqual(packed);
}, 120_000);

it('while it packs again, a reader sees every tarball, whole, at every moment', async () => {
  const before = listing(await packedTarballs());
  const seen: Record<string, { size: number }>[] = [];
  let packing = true;
  const packed = execFile(process.execPath, [join(repository, 'scripts', 'pack.mjs')], {
    cwd: repository,
  }).finally(() => {
    packing = false;
  });
  while (packing) {
    seen.push(listing(packedTarballsDir));
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await packed;
  const sizes = Object.fromEntries(Object.entries(before).map(([file, { size }]) => [file, size]));
  expect(seen.length).toBeGreaterThan(10);
  for (const moment of seen) {
    expect(
      Object.fromEntries(Object.entries(moment).map(([file, { size }]) => [file, size])),
    ).toEqual(sizes);
  }
}, 120_000);
