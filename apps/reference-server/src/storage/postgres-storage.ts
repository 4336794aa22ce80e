import type pg from 'pg';
import type { CredentialKeyring } from '../credentials/encryption-key.js';
import { credentialStorage } from './credentials/credential-flows.js';
import { postgresCredentials } from './credentials/postgres-credentials.js';
import { postgresFault } from './health/postgres-faults.js';
import { guardStorage, type StorageHealthObserver } from './health/unavailable.js';
import { loadMigrations, migrationsDir } from './migrations.js';
import { postgresNoncePurger, postgresNonces } from './nonces/postgres-nonces.js';
import { migratePostgres, openPostgresPool } from './postgres-database.js';
import { postgresRateLimiter } from './rate-limits/rate-limiters.js';
import type { Storage } from './types.js';
import { postgresUsers } from './users/postgres-users.js';

/**
 * The {@link Storage} on PostgreSQL, put together from its concerns: users/postgres-users.ts,
 * credentials/ (secret keys sealed with `keyring` before they are written), nonces/ (claimed by
 * the write a signed request makes, or alone for one that writes nothing), rate-limits/.
 * Uniqueness is the database's (constraints, ON CONFLICT), never check-then-insert. Faults of
 * PostgreSQL's availability become StorageUnavailableError (health/postgres-faults.ts), told to
 * `health`.
 */
export function createPostgresStorage(
  pool: pg.Pool,
  keyring: CredentialKeyring,
  health?: StorageHealthObserver,
): Storage {
  const claimed = postgresNoncePurger(pool);
  const nonces = postgresNonces(pool, claimed);
  const storage: Storage = {
    ...postgresUsers(pool, { claimed, claimNonce: nonces.claimNonce }),
    ...credentialStorage(postgresCredentials(pool), keyring),
    ...nonces,
    rateLimiter: (limit, windowSeconds, counts) =>
      postgresRateLimiter(pool, limit, windowSeconds, counts),
    async ping() {
      await pool.query('SELECT 1');
    },
    async close() {
      await pool.end();
    },
  };
  return guardStorage(storage, postgresFault, health);
}

/**
 * Connects to the PostgreSQL `connectionString` names, brings its schema up to date with
 * migrations/postgres/, and returns the storage on it.
 */
export async function openPostgresStorage(
  connectionString: string,
  keyring: CredentialKeyring,
  onIdleError?: (error: Error) => void,
  health?: StorageHealthObserver,
): Promise<Storage> {
  const migrations = await loadMigrations(migrationsDir('postgres'));
  const pool = openPostgresPool(connectionString, onIdleError);
  try {
    await migratePostgres(pool, migrations);
  } catch (error) {
    await pool.end();
    throw error;
  }
  return createPostgresStorage(pool, keyring, health);
}
