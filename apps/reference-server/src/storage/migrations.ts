import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One versioned SQL file, `NNNN_name.sql`. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
  /** SHA-256 of the file (line endings normalized), to notice an applied migration that was edited. */
  checksum: string;
}

/** The two schemas: one folder of migrations per SQL dialect. */
export type Dialect = 'sqlite' | 'postgres';

/** `migrations/<dialect>/` of the package; the same relative place from `src/storage` and `dist/storage`. */
export function migrationsDir(dialect: Dialect): string {
  return fileURLToPath(new URL(`../../migrations/${dialect}`, import.meta.url));
}

const fileNamePattern = /^(\d{4})_([a-z0-9_]+)\.sql$/;

/** Reads the migration files of `dir`, in version order. A misnamed or duplicate file is an error. */
export async function loadMigrations(dir: string): Promise<Migration[]> {
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
 * Whether `migration` was applied already, given the checksum recorded for its version (undefined:
 * not recorded). Refuses an applied migration whose file has changed since: fix forward with a new
 * migration instead.
 *
 * Each engine applies the migrations that are not, in order, each in one transaction with its
 * record in `schema_migrations`, so a failed or interrupted migration leaves nothing half-applied
 * and a restart applies nothing twice.
 */
export function wasApplied(migration: Migration, recordedChecksum: string | undefined): boolean {
  if (recordedChecksum === undefined) return false;
  if (recordedChecksum !== migration.checksum) {
    throw new Error(
      `Migration ${migration.version}_${migration.name} was changed after it was applied; ` +
        'restore the file and add a new migration instead.',
    );
  }
  return true;
}
