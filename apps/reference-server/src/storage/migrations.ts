import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One versioned SQL file, `NNNN_name.sql`. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
  /**
   * SHA-256 of the file (line endings normalized), to notice an applied migration that was edited:
   * recorded in `schema_migrations` when the migration is applied.
   */
  checksum: string;
  /**
   * Recorded checksums that also mean "applied, unchanged": the other byte forms of this file that
   * released builds applied (see {@link checksumsFileName}).
   */
  alsoAccepted: readonly string[];
}

/** The two schemas: one folder of migrations per SQL dialect. */
export type Dialect = 'sqlite' | 'postgres';

/** `migrations/<dialect>/` of the package; the same relative place from `src/storage` and `dist/storage`. */
export function migrationsDir(dialect: Dialect): string {
  return fileURLToPath(new URL(`../../migrations/${dialect}`, import.meta.url));
}

const fileNamePattern = /^(\d{4})_([a-z0-9_]+)\.sql$/;

/**
 * Beside each dialect's migrations: every file as released, `{ "sha256", "alsoAccepted"? }`.
 *
 * An applied migration is never edited, not even a comment: a database records the checksum of the
 * bytes that built it, and a start refuses it when that matches no released form of the file. A
 * unit test holds each file to its `sha256`, so a released file cannot change unnoticed.
 * `alsoAccepted` lists the checksums of other bytes that released builds had for the file whose
 * checksum is `sha256` (a file that differs from it has none): the comments of
 * `0001_initial.sql` and `0002_credential_lifecycle.sql` (both dialects) were once edited, so the
 * databases of the builds since then recorded the edited bytes, while earlier ones recorded the
 * original bytes, which the files hold again. Both open; a change of the SQL matches neither and is
 * refused. A checksum that ignores comments was not chosen: it would need an SQL tokenizer
 * (strings, quoted names, dollar quotes) on the start path, and still this list for the checksums
 * already recorded.
 */
export const checksumsFileName = 'checksums.json';

/** One line of {@link checksumsFileName}. */
export interface ReleasedChecksums {
  sha256: string;
  alsoAccepted?: string[];
}

/** SHA-256, in hex, of a migration's text as loaded (line endings normalized). */
export function migrationChecksum(sql: string): string {
  return createHash('sha256').update(sql).digest('hex');
}

/**
 * The {@link checksumsFileName} of `dir`, or an empty record when it has none (a folder of a test's
 * own). The package's are held to their shape by its unit test.
 */
export async function loadReleasedChecksums(
  dir: string,
): Promise<Record<string, ReleasedChecksums>> {
  const file = join(dir, checksumsFileName);
  try {
    return JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new Error(`${file} cannot be read: ${(error as Error).message}`);
  }
}

/**
 * Reads the migration files of `dir`, in version order, with the checksums its
 * {@link checksumsFileName} also accepts. A misnamed or duplicate file is an error.
 */
export async function loadMigrations(dir: string): Promise<Migration[]> {
  const released = await loadReleasedChecksums(dir);
  const migrations: Migration[] = [];
  for (const file of (await readdir(dir)).filter((name) => name.endsWith('.sql'))) {
    const match = fileNamePattern.exec(file);
    if (!match?.[1] || !match[2]) {
      throw new Error(`Migration file ${join(dir, file)} is not named NNNN_name.sql`);
    }
    const sql = (await readFile(join(dir, file), 'utf8')).replaceAll('\r\n', '\n');
    const checksum = migrationChecksum(sql);
    migrations.push({
      version: Number(match[1]),
      name: match[2],
      sql,
      checksum,
      // Only the file as released has those equivalents: an edit of it drops them too.
      alsoAccepted: released[file]?.sha256 === checksum ? (released[file]?.alsoAccepted ?? []) : [],
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
 * not recorded). Refuses an applied migration whose file has changed since (a recorded checksum that
 * is neither the file's nor one its released forms also accepted): fix forward with a new migration
 * instead.
 *
 * Each engine applies the migrations that are not, in order, each in one transaction with its
 * record in `schema_migrations`, so a failed or interrupted migration leaves nothing half-applied
 * and a restart applies nothing twice.
 */
export function wasApplied(migration: Migration, recordedChecksum: string | undefined): boolean {
  if (recordedChecksum === undefined) return false;
  if (
    recordedChecksum !== migration.checksum &&
    !migration.alsoAccepted.includes(recordedChecksum)
  ) {
    throw new Error(
      `Migration ${migration.version}_${migration.name} was changed after it was applied; ` +
        'restore the file and add a new migration instead.',
    );
  }
  return true;
}
