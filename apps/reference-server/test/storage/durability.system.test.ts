import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { sqliteFileName } from '../../src/storage/open-storage.js';
import { openSqliteDatabase } from '../../src/storage/sqlite-database.js';
import { type CompiledSources, compileForChild } from './compile-for-child.js';

const writer = 'test/storage/child/write-users-until-killed.ts';
let compiled: CompiledSources;
let dataDir: string;

beforeAll(async () => {
  compiled = await compileForChild([writer]);
  dataDir = await mkdtemp(join(tmpdir(), 'reference-server-durability-'));
}, 120_000);
afterAll(async () => {
  await compiled?.remove();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** Runs the writer from user `first` on, SIGKILLs it after `writes` acknowledgements, returns them. */
async function writeThenKill(first: number, writes: number): Promise<number[]> {
  const child = spawn(process.execPath, [compiled.path(writer), dataDir, String(first)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.once('exit', (_, signal) => resolve(signal)),
  );
  const acknowledged: number[] = [];
  for await (const line of createInterface({ input: child.stdout })) {
    const match = /^acknowledged (\d+)$/.exec(line);
    if (match) acknowledged.push(Number(match[1]));
    // Killed while it keeps writing, so the kill usually lands inside a transaction. Lines already
    // in the pipe still arrive after the kill: they are acknowledgements too.
    if (acknowledged.length === writes) child.kill('SIGKILL');
  }
  const signal = await exited;
  if (signal !== 'SIGKILL') throw new Error(`writer ended by itself (${signal}): ${stderr}`);
  return acknowledged;
}

test('every write acknowledged before a SIGKILL is there after a restart, three crashes in a row', async () => {
  const acknowledged: number[] = [];
  for (const [round, writes] of [40, 7, 23].entries()) {
    acknowledged.push(...(await writeThenKill(round * 1000 + 1, writes)));
  }
  expect(acknowledged.length).toBeGreaterThanOrEqual(70);
  const db = openSqliteDatabase(join(dataDir, sqliteFileName));
  try {
    const rows = db
      .prepare("SELECT json_extract(details, '$.monthlyIncome') AS income FROM users")
      .all() as {
      income: number;
    }[];
    const stored = new Set(rows.map((row) => row.income));
    expect(acknowledged.filter((n) => !stored.has(n))).toEqual([]);
    // At most the one write in flight at each kill may have committed unacknowledged.
    expect(rows.length - acknowledged.length).toBeLessThanOrEqual(3);
  } finally {
    db.close();
  }
}, 180_000);
