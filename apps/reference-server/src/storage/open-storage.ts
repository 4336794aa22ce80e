import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Database } from './database.js';
import { loadMigrations, migrate } from './migrate.js';
import { openPgDatabase } from './pg-database.js';
import { openPgliteDatabase } from './pglite-database.js';
import { createSqlStorage } from './sql-storage.js';
import type { Storage } from './types.js';

/**
 * The package's `data/` folder (git-ignored), the same relative place from `src/storage` and
 * `dist/storage`: where the embedded database lives when DATABASE_URL is not set.
 */
export const defaultDataDir = fileURLToPath(new URL('../../data', import.meta.url));

/** Where a DATABASE_URL points. */
export type DatabaseTarget =
  | { kind: 'pglite'; dataDir: string }
  | { kind: 'postgres'; connectionString: string };

/**
 * Reads DATABASE_URL: unset or empty → embedded PGlite in `defaultDataDir`; `memory://` → PGlite in
 * memory; `postgres://` or `postgresql://` → PostgreSQL; any other `scheme://` is refused; anything
 * else is a directory for PGlite, relative to the working directory. Error messages name only the
 * scheme, never the URL, which may hold a password.
 */
export function parseDatabaseUrl(
  databaseUrl: string | undefined,
  defaultDataDirectory: string,
): DatabaseTarget {
  const value = databaseUrl?.trim() ?? '';
  if (value === '') return { kind: 'pglite', dataDir: resolve(defaultDataDirectory) };
  if (value === 'memory://') return { kind: 'pglite', dataDir: 'memory://' };
  if (/^postgres(?:ql)?:\/\//i.test(value)) return { kind: 'postgres', connectionString: value };
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(value)?.[1];
  if (scheme !== undefined) {
    throw new Error(
      `DATABASE_URL uses the unsupported scheme "${scheme}://": use postgres:// or postgresql:// ` +
        'for PostgreSQL, memory:// for an in-memory database, or a directory path for the embedded ' +
        'database (unset: the default directory).',
    );
  }
  return { kind: 'pglite', dataDir: resolve(value) };
}

/** Options of {@link openStorage}. */
export interface OpenStorageOptions {
  /** The PGlite directory when DATABASE_URL is unset or empty, e.g. {@link defaultDataDir}. */
  defaultDataDir: string;
  /** Errors of idle PostgreSQL connections (the pool replaces them); ignored when absent. */
  onIdleError?: (error: Error) => void;
}

/**
 * Opens the database DATABASE_URL names (see {@link parseDatabaseUrl}), brings its schema up to
 * date with migrations/, and returns the storage. Close it to release the database (and, for PGlite
 * on a directory, the directory's lock).
 */
export async function openStorage(
  databaseUrl: string | undefined,
  options: OpenStorageOptions,
): Promise<Storage> {
  const target = parseDatabaseUrl(databaseUrl, options.defaultDataDir);
  const migrations = await loadMigrations();
  const db: Database =
    target.kind === 'postgres'
      ? openPgDatabase(target.connectionString, options.onIdleError)
      : await openPgliteDatabase(target.dataDir);
  try {
    await migrate(db, migrations);
  } catch (error) {
    await db.close();
    throw error;
  }
  return createSqlStorage(db);
}
