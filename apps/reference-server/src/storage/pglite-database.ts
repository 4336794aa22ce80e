import { PGlite, type Transaction } from '@electric-sql/pglite';
import { lockDataDir } from './data-dir-lock.js';
import type { Database } from './database.js';

/**
 * Opens embedded PostgreSQL (PGlite) on a directory, or in memory for `memory://`.
 *
 * PGlite is one connection in one process: its `transaction()` and `query()` queue behind each
 * other, which serializes our transactions. Durability: `relaxedDurability` stays off, so a query
 * resolves only after its writes reached the directory; with Node's filesystem every write goes
 * straight to the host file, and PostgreSQL writes the WAL at COMMIT (synchronous_commit on), so an
 * acknowledged write survives a crash of this process (test/storage/durability.test.ts). PGlite
 * runs with fsync off and its Node filesystem has no fsync, so it does not survive a power loss of
 * the machine: use PostgreSQL for that.
 *
 * A directory is locked to this process while open: PGlite does not lock it, and two processes
 * writing one directory would corrupt it.
 */
export async function openPgliteDatabase(dataDir: string): Promise<Database> {
  const inMemory = dataDir.startsWith('memory://');
  const unlock = inMemory ? () => {} : lockDataDir(dataDir);
  let pglite: PGlite;
  try {
    pglite = await PGlite.create(dataDir);
  } catch (error) {
    unlock();
    throw error;
  }
  return {
    query: (sql, params) => runQuery(pglite, sql, params),
    exec: (sql) => runExec(pglite, sql),
    transaction: (work) =>
      pglite.transaction((tx) =>
        work({
          query: (sql, params) => runQuery(tx, sql, params),
          exec: (sql) => runExec(tx, sql),
        }),
      ),
    async close() {
      try {
        await pglite.close();
      } finally {
        unlock();
      }
    },
  };
}

async function runQuery<Row>(
  target: PGlite | Transaction,
  sql: string,
  params: readonly unknown[] = [],
): Promise<Row[]> {
  const result = await target.query<Row>(sql, [...params]);
  return result.rows;
}

async function runExec(target: PGlite | Transaction, sql: string): Promise<void> {
  await target.exec(sql);
}
