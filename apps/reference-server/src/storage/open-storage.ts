import { existsSync, mkdirSync, statSync, unlinkSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type CredentialKeyring,
  type EncryptionKey,
  EncryptionKeyError,
  keyFileOf,
  keyRequiredWithPostgres,
  loadOrCreateKeyFile,
  randomEncryptionKey,
} from '../credentials/encryption-key.js';
import type { StorageHealthObserver } from './health/unavailable.js';
import { openPostgresStorage } from './postgres-storage.js';
import { keepDatabasePrivate } from './private-files.js';
import type { SqliteOptions } from './sqlite-database.js';
import { holdSqliteServerLock, type SqliteServerLock } from './sqlite-server-lock.js';
import { openSqliteStorage } from './sqlite-storage.js';
import type { CredentialEvent, Storage } from './types.js';

/**
 * The package's `data/` folder (git-ignored), the same relative place from `src/storage` and
 * `dist/storage`: where the embedded database lives when DATABASE_URL is not set.
 */
export const defaultDataDir = fileURLToPath(new URL('../../data', import.meta.url));

/** The embedded database's file inside a data directory. */
export const sqliteFileName = 'reference-server.sqlite';

/** Where a DATABASE_URL points: an SQLite file (or ':memory:'), or a PostgreSQL server. */
export type DatabaseTarget =
  | { kind: 'sqlite'; file: string }
  | { kind: 'postgres'; connectionString: string };

/** A path that does not exist yet names a file, not a directory, when it ends like this. */
const sqliteFileExtension = /\.(?:sqlite3?|db)$/i;

/** Whether DATABASE_URL names a PostgreSQL server (`postgres://…` or `postgresql://…`). */
export function isPostgresUrl(databaseUrl: string | undefined): boolean {
  return /^postgres(?:ql)?:\/\//i.test(databaseUrl?.trim() ?? '');
}

/**
 * Reads DATABASE_URL:
 * - unset or empty → the embedded SQLite database in `defaultDataDirectory`;
 * - `memory://` → an SQLite database in memory, gone at exit (tests);
 * - `postgres://…` or `postgresql://…` → PostgreSQL;
 * - any other `scheme://` → refused;
 * - anything else is a path, relative to the working directory: an existing directory, or a path
 *   that does not exist and does not end in .sqlite, .sqlite3 or .db, is a directory (created when
 *   needed) that holds {@link sqliteFileName}; otherwise it is the database file itself.
 * A directory holding a PGlite database of an earlier version is refused, saying in one line how to
 * start fresh. Error messages name only the scheme, never the URL, which may hold a password.
 */
export function parseDatabaseUrl(
  databaseUrl: string | undefined,
  defaultDataDirectory: string,
): DatabaseTarget {
  const value = databaseUrl?.trim() ?? '';
  if (value === '') return sqliteAt(resolve(defaultDataDirectory));
  if (value === 'memory://') return { kind: 'sqlite', file: ':memory:' };
  if (isPostgresUrl(value)) return { kind: 'postgres', connectionString: value };
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(value)?.[1];
  if (scheme !== undefined) {
    throw new Error(
      `DATABASE_URL uses the unsupported scheme "${scheme}://": use postgres:// or postgresql:// ` +
        'for PostgreSQL, memory:// for an in-memory database, or a directory or file path for the ' +
        'embedded database (unset: the default directory).',
    );
  }
  return sqliteAt(resolve(value));
}

function sqliteAt(path: string): DatabaseTarget {
  const stats = statSync(path, { throwIfNoEntry: false });
  const isDirectory = stats ? stats.isDirectory() : !sqliteFileExtension.test(path);
  if (!isDirectory) return { kind: 'sqlite', file: path };
  // PG_VERSION is the mark of a PostgreSQL data directory, which PGlite wrote.
  if (existsSync(join(path, 'PG_VERSION'))) {
    throw new Error(
      `${path} holds a PGlite database from an earlier version of the reference server, which now ` +
        `embeds SQLite: to start fresh, delete it (rm -rf '${path}') or set DATABASE_URL to another path.`,
    );
  }
  return { kind: 'sqlite', file: join(path, sqliteFileName) };
}

/** Options of {@link openStorage}. */
export interface OpenStorageOptions extends SqliteOptions {
  /** The embedded database's directory when DATABASE_URL is unset or empty, e.g. {@link defaultDataDir}. */
  defaultDataDir: string;
  /** Errors of idle PostgreSQL connections (the pool replaces them); ignored when absent. */
  onIdleError?: (error: Error) => void;
  /** Hears each call's outcome: unavailable (503) or answered (see health/outage-log.ts). */
  health?: StorageHealthObserver;
  /**
   * The server opens its database with this: an embedded database file then serves this process
   * alone until the storage is closed, and a second server on it is refused with
   * DatabaseInUseError (see sqlite-server-lock.ts). The commands open it without.
   */
  asTheOneServer?: boolean;
  /**
   * CREDENTIALS_ENCRYPTION_KEY (`current`) and CREDENTIALS_ENCRYPTION_KEY_PREVIOUS, parsed (see
   * config.ts). Without `current`: the key file beside an embedded database, a random key for an
   * in-memory one; PostgreSQL refuses to open.
   */
  encryptionKeys?: { current?: EncryptionKey; previous?: EncryptionKey };
  /** Who the events of opening are recorded as (secrets in clear encrypted); default `start`. */
  actor?: string;
  /** Hears the events of opening, to log them. */
  onCredentialEvents?: (events: CredentialEvent[]) => void;
}

/**
 * Opens the database DATABASE_URL names (see {@link parseDatabaseUrl}), brings its schema up to
 * date with the migrations of its dialect (migrations/sqlite/ or migrations/postgres/), checks
 * that every stored secret key opens with the encryption key (a wrong key throws
 * EncryptionKeyError, one line), encrypts those an earlier version stored in clear, and returns
 * the storage. Close it to release the database.
 */
export async function openStorage(
  databaseUrl: string | undefined,
  options: OpenStorageOptions,
): Promise<Storage> {
  const target = parseDatabaseUrl(databaseUrl, options.defaultDataDir);
  // Owner only, before anything is written: the users' personal data and the secrets' key.
  if (target.kind === 'sqlite' && target.file !== ':memory:') {
    keepDatabasePrivate(target.file, { ownDirectory: basename(target.file) === sqliteFileName });
  }
  // A second server is refused before it reads or makes a key file or opens the database.
  const lock =
    options.asTheOneServer && target.kind === 'sqlite' && target.file !== ':memory:'
      ? holdSqliteServerLock(target.file)
      : undefined;
  let createdKeyFile: string | undefined;
  let storage: Storage | undefined;
  try {
    const resolved = resolveKeyring(target, options.encryptionKeys ?? {});
    createdKeyFile = resolved.createdKeyFile;
    storage =
      target.kind === 'postgres'
        ? await openPostgresStorage(
            target.connectionString,
            resolved.keyring,
            options.onIdleError,
            options.health,
          )
        : await openSqliteStorage(target.file, resolved.keyring, options, options.health);
    const events = await storage.sealCredentialSecrets({
      actor: options.actor ?? 'start',
      reencrypt: false,
    });
    if (events.length > 0) options.onCredentialEvents?.(events);
    return lock ? releasingOnClose(storage, lock) : storage;
  } catch (error) {
    await storage?.close();
    // A key file just made for a database whose secrets another key sealed would be the wrong
    // key at every later start too: leave the directory as it was. (Only then: after any other
    // failure, secrets may have been sealed with it.)
    if (createdKeyFile && error instanceof EncryptionKeyError) unlinkSync(createdKeyFile);
    lock?.release();
    throw error;
  }
}

/** The storage, whose close also gives up the server's lock on its embedded database. */
function releasingOnClose(storage: Storage, lock: SqliteServerLock): Storage {
  return {
    ...storage,
    async close() {
      try {
        await storage.close();
      } finally {
        lock.release();
      }
    },
  };
}

/**
 * The keys the secrets are sealed with: the operator's, else the embedded database's key file
 * (created at its first start, mode 0600), else for an in-memory database a random key that lives
 * as long as it. PostgreSQL has no default: every process on one database must share the key, and
 * a key file on one machine would not be shared.
 */
function resolveKeyring(
  target: DatabaseTarget,
  keys: { current?: EncryptionKey; previous?: EncryptionKey },
): { keyring: CredentialKeyring; createdKeyFile?: string } {
  const previous = keys.previous ? { previous: keys.previous } : {};
  if (keys.current) return { keyring: { current: keys.current, ...previous } };
  if (target.kind === 'postgres') {
    throw new EncryptionKeyError(keyRequiredWithPostgres);
  }
  if (target.file === ':memory:') {
    return {
      keyring: { current: { ...randomEncryptionKey(), source: 'the in-memory key' }, ...previous },
    };
  }
  mkdirSync(dirname(target.file), { recursive: true });
  const keyFile = keyFileOf(target.file);
  const { key, created } = loadOrCreateKeyFile(keyFile);
  return {
    keyring: { current: key, ...previous },
    ...(created ? { createdKeyFile: keyFile } : {}),
  };
}
