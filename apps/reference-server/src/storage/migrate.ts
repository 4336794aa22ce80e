import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Database } from './database.js';

/** One versioned SQL file, `NNNN_name.sql`. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
  /** SHA-256 of the file (line endings normalized), to notice an applied migration that was edited. */
  checksum: string;
}

/** The package's `migrations/` folder; the same relative place from `src/storage` and `dist/storage`. */
export const migrationsDir = fileURLToPath(new URL('../../migrations', import.meta.url));

const fileNamePattern = /^(\d{4})_([a-z0-9_]+)\.sql$/;

/** Any fixed number: the key of the advisory lock that serializes migrations across processes. */
const migrationLockKey = 7_240_611;

/** Reads the migration files of `dir`, in version order. A misnamed or duplicate file is an error. */
export async function loadMigrations(dir: string = migrationsDir): Promise<Migration[]> {
  const migrations: Migration[] = [];
  for (const file of (await readdir(dir)).filter((name) => name.endsWith('.sql'))) {
    const match = fileNamePattern.exec(file);
    if (!match?.[1] || !match[2]) {
      throw new Error(`Migration file ${join(dir, file)} is not named NNNN_name.sql`);
    }
    const sql = (await readFile(join(dir, file), 'utf8')).replaceAll('\r\n', '\n');
    migrations.push({
      version: Number(match[1]),
      name: match[2],
      sql,
      checksum: createHash('sha256').update(sql).digest('hex'),
    });
  }
  migrations.sort((a, b) => a.version - b.version);
  migrations.forEach((migration, index) => {
    if (index > 0 && migrations[index - 1]?.version === migration.version) {
      throw new Error(`Two migration files in ${dir} have version ${migration.version}`);
    }
  });
  return migrations;
}

/**
 * Applies the migrations not yet recorded in `schema_migrations`, in order, each in its own
 * transaction with its record, so a failed migration leaves nothing half-applied and a restart
 * applies nothing twice. An advisory lock makes servers starting together on one PostgreSQL take
 * turns. Refuses to start when an applied migration's file has changed since: fix forward with a new
 * migration instead. Returns the versions it applied.
 */
export async function migrate(db: Database, migrations: readonly Migration[]): Promise<number[]> {
  const applied: number[] = [];
  for (const migration of migrations) {
    const didApply = await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [migrationLockKey]);
      await tx.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version integer PRIMARY KEY,
        name text NOT NULL,
        checksum text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
      const [recorded] = await tx.query<{ checksum: string }>(
        'SELECT checksum FROM schema_migrations WHERE version = $1',
        [migration.version],
      );
      if (recorded) {
        if (recorded.checksum !== migration.checksum) {
          throw new Error(
            `Migration ${migration.version}_${migration.name} was changed after it was applied; ` +
              'restore the file and add a new migration instead.',
          );
        }
        return false;
      }
      await tx.exec(migration.sql);
      await tx.query(
        'INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)',
        [migration.version, migration.name, migration.checksum],
      );
      return true;
    });
    if (didApply) applied.push(migration.version);
  }
  return applied;
}
