import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { loadMigrations, migrationsDir } from '../../src/storage/migrations.js';
import { type CheckpointReport, startCheckpointer } from '../../src/storage/sqlite-checkpointer.js';
import {
  busyTimeoutMs,
  groupCommitter,
  migrateSqlite,
  openSqliteDatabase,
  walSyncer,
} from '../../src/storage/sqlite-database.js';
import { createSqliteStorage } from '../../src/storage/sqlite-storage.js';
import { institution, person } from './fixtures.js';

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'reference-server-disk-work-'));
});
afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

async function migrated(name: string) {
  const file = join(scratch, name);
  const db = openSqliteDatabase(file);
  migrateSqlite(db, await loadMigrations(migrationsDir('sqlite')));
  return { file, db };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 20));

test('a write is acknowledged only after the fsync of the log that follows its COMMIT', async () => {
  const { file, db } = await migrated('sync.sqlite');
  db.exec('PRAGMA synchronous = NORMAL');
  const pending: ((error: Error | null) => void)[] = [];
  const syncWal = walSyncer(file, ((_fd: number, callback: (error: Error | null) => void) =>
    pending.push(callback)) as never);
  const inTransaction = groupCommitter(db, { afterCommit: (acknowledge) => syncWal(acknowledge) });

  let first: string | undefined;
  void inTransaction(() => 'first').then((value) => (first = value));
  await tick();
  // Committed (another connection sees it), not yet acknowledged: the fsync has not returned.
  expect(pending).toHaveLength(1);
  expect(first).toBeUndefined();

  // Committed while that fsync runs: waits for the next one, which starts only after it.
  const second = inTransaction(() => 'second').then(
    (value) => ({ value }),
    (error: Error) => ({ error: error.message }),
  );
  await tick();
  expect(pending).toHaveLength(1);
  pending[0]?.(null);
  await tick();
  expect(first).toBe('first');
  expect(pending).toHaveLength(2);

  // A failed fsync fails the writes it covers: nobody is told a write is durable when it is not.
  const third = inTransaction(() => 'third');
  await tick();
  pending[1]?.(new Error('EIO: i/o error, fsync'));
  expect(await second).toEqual({ error: 'EIO: i/o error, fsync' });
  await tick();
  pending[2]?.(null);
  await expect(third).resolves.toBe('third');

  await syncWal.close();
  db.close();
});

test('checkpoints run on their own thread: the database file grows while the server connection never checkpoints', async () => {
  const { file, db } = await migrated('checkpoints.sqlite');
  const reports: CheckpointReport[] = [];
  const storage = createSqliteStorage(db, { file, onCheckpoint: (report) => reports.push(report) });
  const institutionId = await institution(storage, 'Checkpoint Bank');
  const before = statSync(file).size;

  for (let round = 0; round < 20; round++) {
    await Promise.all(
      Array.from({ length: 10 }, () => storage.createOrAddUser(institutionId, person())),
    );
  }
  await expect.poll(() => reports.some((r) => r.checkpointed > 0), { timeout: 5000 }).toBe(true);
  // Only a checkpoint copies pages into the main file; this connection has wal_autocheckpoint 0.
  expect(db.prepare('PRAGMA wal_autocheckpoint').get()).toEqual({ wal_autocheckpoint: 0 });
  expect(statSync(file).size).toBeGreaterThan(before);
  await storage.close();
});

/** The log's largest size while 600 creates are written with always one write in flight. */
async function largestLog(name: string, maxLogFrames: number): Promise<number> {
  const { file, db } = await migrated(name);
  // Checkpoints back to back, as under a load that keeps the log growing between them.
  const storage = createSqliteStorage(db, { file, maxLogFrames, minIntervalMs: 0 });
  const institutionId = await institution(storage, 'Bounded Bank');
  let largest = 0;
  const writes: Promise<unknown>[] = [];
  for (let i = 0; i < 600; i++) {
    writes.push(storage.createOrAddUser(institutionId, person()));
    if (i % 5 === 4) {
      await writes.at(-1);
      largest = Math.max(largest, statSync(`${file}-wal`).size);
    }
  }
  await Promise.all(writes);
  await storage.close();
  return largest;
}

test('under writes that never pause, the log stays bounded: writes wait for a checkpoint to catch up', async () => {
  const unbounded = await largestLog('unbounded.sqlite', Number.POSITIVE_INFINITY);
  const bounded = await largestLog('bounded.sqlite', 64);
  // Without the cap the log only starts over when a checkpoint happens to finish between two
  // writes; with it, it starts over every 64 frames plus what one checkpoint lets through.
  expect(bounded).toBeLessThan(unbounded / 3);
});

test('a checkpoint thread that cannot open the database reports it (the storage then checkpoints in its COMMITs again)', async () => {
  const failure = new Promise<Error>((resolve) => {
    startCheckpointer(join(scratch, 'no-such-dir', 'x.sqlite'), {
      busyTimeoutMs,
      onFailure: resolve,
    });
  });
  await expect(failure).resolves.toBeInstanceOf(Error);
});
