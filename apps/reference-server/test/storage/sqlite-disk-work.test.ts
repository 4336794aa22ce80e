import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@institution-api/test-support/wait-for';
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
import { institution, person, testKeyring } from './fixtures.js';

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

/** A few turns of the event loop: a group commit runs on the next one (setImmediate). */
const turns = async () => {
  for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
};
/** Waits until `condition` holds (the fsyncs are the test's, so it holds within turns). */
const until = (condition: () => boolean, message: string) =>
  waitFor(() => condition() || undefined, { timeoutMs: 5000, intervalMs: 1, message });

test('a write is acknowledged only after the fsync of the log that follows its COMMIT', async () => {
  const { file, db } = await migrated('sync.sqlite');
  db.exec('PRAGMA synchronous = NORMAL');
  const pending: ((error: Error | null) => void)[] = [];
  const syncWal = walSyncer(file, ((_fd: number, callback: (error: Error | null) => void) =>
    pending.push(callback)) as never);
  const inTransaction = groupCommitter(db, { afterCommit: (acknowledge) => syncWal(acknowledge) });

  let first: string | undefined;
  void inTransaction(() => 'first').then((value) => (first = value));
  await until(() => pending.length === 1, 'the fsync after the first COMMIT');
  await turns();
  // Committed (another connection sees it), not yet acknowledged: the fsync has not returned.
  expect(first).toBeUndefined();

  // Committed while that fsync runs: waits for the next one, which starts only after it.
  const second = inTransaction(() => 'second').then(
    (value) => ({ value }),
    (error: Error) => ({ error: error.message }),
  );
  await turns();
  expect(pending).toHaveLength(1);
  pending[0]?.(null);
  await until(() => first !== undefined && pending.length === 2, 'the first acknowledged');
  expect(first).toBe('first');

  // A failed fsync fails the writes it covers: nobody is told a write is durable when it is not.
  const third = inTransaction(() => 'third');
  await turns();
  pending[1]?.(new Error('EIO: i/o error, fsync'));
  expect(await second).toEqual({ error: 'EIO: i/o error, fsync' });
  await until(() => pending.length === 3, 'the fsync for the third write');
  pending[2]?.(null);
  await expect(third).resolves.toBe('third');

  await syncWal.close();
  db.close();
});

test('a write that committed is enough for (a nonce claim) settles before the fsync, and alone asks for none', async () => {
  const { file, db } = await migrated('committed-is-enough.sqlite');
  db.exec('PRAGMA synchronous = NORMAL');
  const pending: ((error: Error | null) => void)[] = [];
  const syncWal = walSyncer(file, ((_fd: number, callback: (error: Error | null) => void) =>
    pending.push(callback)) as never);
  const inTransaction = groupCommitter(db, {
    afterCommit: (acknowledge, flush) => (flush ? syncWal(acknowledge) : acknowledge(null)),
  });

  // Alone: settled at COMMIT, no fsync asked for.
  await expect(inTransaction(() => 'claim', { committedIsEnough: true })).resolves.toBe('claim');
  expect(pending).toHaveLength(0);

  // In a group with a durable write: it settles at once, the durable one after the fsync.
  let durable: string | undefined;
  void inTransaction(() => 'durable').then((value) => (durable = value));
  const claim = inTransaction(() => 'claim 2', { committedIsEnough: true });
  await expect(claim).resolves.toBe('claim 2');
  expect(pending).toHaveLength(1);
  expect(durable).toBeUndefined();
  pending[0]?.(null);
  await until(() => durable !== undefined, 'the durable write acknowledged');
  expect(durable).toBe('durable');

  await syncWal.close();
  db.close();
});

test('checkpoints run on their own thread: the database file grows while the server connection never checkpoints', async () => {
  const { file, db } = await migrated('checkpoints.sqlite');
  const reports: CheckpointReport[] = [];
  const storage = createSqliteStorage(db, testKeyring(), {
    file,
    onCheckpoint: (report) => reports.push(report),
  });
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

/**
 * Writes that never pause (one commit after another, each waiting only for `beforeWrite`) beside
 * checkpoints run back to back, as under load. Returns what happened, in order: every commit and
 * every checkpoint's report.
 */
async function writeWithoutPause(name: string, maxLogFrames: number) {
  const file = join(scratch, name);
  const db = openSqliteDatabase(file);
  db.exec('PRAGMA wal_autocheckpoint = 0; CREATE TABLE filler (bytes BLOB NOT NULL)');
  const insert = db.prepare('INSERT INTO filler VALUES (randomblob(5000))'); // two pages a commit
  const events: ({ kind: 'commit' } | ({ kind: 'checkpoint' } & CheckpointReport))[] = [];
  const checkpointer = startCheckpointer(file, {
    busyTimeoutMs,
    maxLogFrames,
    minIntervalMs: 0,
    onCheckpoint: (report) => events.push({ kind: 'checkpoint', ...report }),
    onFailure: (error) => {
      throw error;
    },
  });
  for (let i = 0; i < 400; i++) {
    await checkpointer.beforeWrite();
    insert.run();
    events.push({ kind: 'commit' });
    checkpointer.afterCommit();
    await new Promise(setImmediate); // lets the thread's reports in between two writes
  }
  await checkpointer.close();
  db.close();
  return events;
}

/**
 * How often the log missed a chance to start over: a write committed after a checkpoint found the
 * log at `maxLogFrames` or more and before the next checkpoint, or that next checkpoint not copying
 * all of it. Zero means every time the log was that long, writes waited until it was all copied.
 */
function missedRestarts(
  events: Awaited<ReturnType<typeof writeWithoutPause>>,
  maxLogFrames: number,
) {
  let missed = 0;
  let held = false;
  for (const event of events) {
    if (event.kind === 'commit') {
      if (held) missed++;
    } else if (held) {
      held = false;
      if (event.checkpointed !== event.log) missed++;
    } else if (event.log >= maxLogFrames) {
      held = true;
    }
  }
  return missed;
}

test('under writes that never pause, the log stays bounded: writes wait for a checkpoint to catch up, then the log starts over', async () => {
  const cap = 64;
  const bounded = await writeWithoutPause('bounded.sqlite', cap);
  const over = bounded.filter((event) => event.kind === 'checkpoint' && event.log >= cap);
  expect(over.length).toBeGreaterThan(0);
  // Once a checkpoint has found the log over the cap, nothing is written until the next one has
  // copied all of it, ...
  expect(missedRestarts(bounded, cap)).toBe(0);
  // ... so the log starts over: some checkpoint finds it shorter than the one before.
  const logs = bounded.flatMap((event) => (event.kind === 'checkpoint' ? [event.log] : []));
  expect(logs.some((log, index) => index > 0 && log < (logs[index - 1] ?? 0))).toBe(true);
  // Without a cap, the same writes go on between checkpoints that find the log that long.
  const unbounded = await writeWithoutPause('unbounded.sqlite', Number.POSITIVE_INFINITY);
  expect(missedRestarts(unbounded, cap)).toBeGreaterThan(0);
});

test("the storage's writes are the ones held: after a checkpoint finds the log over the cap, at most the write already committed is answered before the next checkpoint", async () => {
  const cap = 64;
  const { file, db } = await migrated('held-writes.sqlite');
  const events: ('answer' | 'over' | 'checkpoint')[] = [];
  const storage = createSqliteStorage(db, testKeyring(), {
    file,
    maxLogFrames: cap,
    minIntervalMs: 0,
    onCheckpoint: ({ log }) => events.push(log >= cap ? 'over' : 'checkpoint'),
  });
  const institutionId = await institution(storage, 'Held Bank');
  // One write in flight at a time: the next is sent once the one before is answered.
  for (let i = 0; i < 300; i++) {
    await storage.createOrAddUser(institutionId, person());
    events.push('answer');
  }
  await storage.close();
  // Answers between a checkpoint that found the log over the cap and the next checkpoint, which
  // copies all of it while the writes wait (and whose own report, over the cap too, ends the wait).
  const answersWhileHeld: number[] = [];
  let held: number | undefined; // the answers so far while the writes are held
  for (const event of events) {
    if (event === 'answer') {
      if (held !== undefined) held++;
    } else if (held !== undefined) {
      answersWhileHeld.push(held);
      held = undefined;
    } else if (event === 'over') {
      held = 0;
    }
  }
  expect(answersWhileHeld.length).toBeGreaterThan(0);
  expect(Math.max(...answersWhileHeld)).toBeLessThanOrEqual(1);
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
