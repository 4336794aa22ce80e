import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { openStorage } from '../../src/storage/open-storage.js';
import { type CompiledSources, compileForChild } from './compile-for-child.js';
import { institution, person } from './fixtures.js';

const opener = 'test/storage/child/open-fresh-database.ts';
const signals = ['SIGKILL', 'SIGTERM', 'SIGINT'] as const;
const rounds = 18;
let compiled: CompiledSources;
let scratch: string;

beforeAll(async () => {
  compiled = await compileForChild([opener]);
  scratch = await mkdtemp(join(tmpdir(), 'reference-server-first-start-'));
}, 120_000);
afterAll(async () => {
  await compiled?.remove();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/**
 * Runs the opener on `dir`; `killAfterMs` after it says "opening", sends `signal` (never, when
 * undefined). Resolves with the milliseconds from "opening" to "opened" (undefined if it never got
 * there) and how the child ended.
 */
async function openInChild(dir: string, kill?: { afterMs: number; signal: NodeJS.Signals }) {
  const child = spawn(process.execPath, [compiled.path(opener), dir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  let openingAt = 0;
  let openMs: number | undefined;
  for await (const line of createInterface({ input: child.stdout })) {
    if (line === 'opening') {
      openingAt = performance.now();
      if (kill) setTimeout(() => child.kill(kill.signal), kill.afterMs);
    }
    if (line === 'opened') openMs = performance.now() - openingAt;
  }
  return { openMs, ended: await exited, stderr };
}

test('a first start interrupted at any moment leaves a database that opens and works', async () => {
  // How long an uninterrupted first open takes here, so that the kills spread over all of it. The
  // first open of a run is slower (cold caches), so the estimate is the fastest open seen so far.
  let openMs = Number.POSITIVE_INFINITY;
  for (const name of ['uninterrupted-1', 'uninterrupted-2']) {
    const full = await openInChild(join(scratch, name));
    expect(full, full.stderr).toMatchObject({ ended: 0, openMs: expect.any(Number) });
    openMs = Math.min(openMs, full.openMs ?? openMs);
  }
  const wanted = rounds / 3;
  const interrupted: string[] = [];
  // A kill that lands after the open (a loaded machine) proves nothing, so rounds go on, with the
  // estimate lowered, until enough of them were stopped before they had opened.
  for (
    let round = 0;
    round < rounds || (interrupted.length < wanted && round < rounds * 3);
    round++
  ) {
    const dir = join(scratch, `round-${round}`);
    const signal = signals[round % signals.length] ?? 'SIGKILL';
    const afterMs = Math.round((openMs * (round % rounds)) / rounds);
    const run = await openInChild(dir, { afterMs, signal });
    if (run.openMs === undefined) interrupted.push(`${signal} after ${afterMs} ms`);
    else openMs = Math.min(openMs, run.openMs);

    const storage = await openStorage(dir, { defaultDataDir: '/nonexistent' });
    try {
      const bank = await institution(storage, 'Bank A');
      const { created } = await storage.createOrAddUser(bank, person());
      expect(created, `round ${round}: ${signal} after ${afterMs} ms`).toBe(true);
    } finally {
      await storage.close();
    }
  }
  console.log(
    `first start: an open takes ${openMs.toFixed(1)} ms here; ${interrupted.length} children ` +
      `were stopped before they had opened (${interrupted.join(', ')}); every database opened again`,
  );
  expect(interrupted.length).toBeGreaterThanOrEqual(wanted);
}, 600_000);
