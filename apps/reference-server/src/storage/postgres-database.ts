import pg from 'pg';
import type { BatcherOptions } from './batcher.js';
import { type Migration, wasApplied } from './migrations.js';

/**
 * The bounds on waiting for PostgreSQL, so that no request waits on a dead or stuck database for
 * long (spec: `ServiceUnavailable`): a connection from the pool, new or idle, within
 * `connectMs`; a statement within `statementMs` (PostgreSQL cancels it: lock waits included);
 * an answer at all within `answerMs` (the driver gives up on a server that went silent, a
 * network gone, and drops the connection). Past any of them the call fails as unavailable (503).
 */
export const postgresBounds = { connectMs: 3_000, statementMs: 5_000, answerMs: 6_000 } as const;

/** `field type, …`: the column definitions of a json_to_recordset over objects of `fields`. */
export const recordColumns = (fields: Record<string, string>) =>
  Object.entries(fields)
    .map(([field, type]) => `${field} ${type}`)
    .join(', ');

/**
 * Connects to PostgreSQL through a pg Pool (DATABASE_URL=postgres://…), within
 * {@link postgresBounds}, with TCP keep-alive so a connection to a vanished host is noticed.
 * `onIdleError` hears errors of idle connections (e.g. the server restarted): the pool drops such
 * a client and opens a new one on the next query; without a listener Node would end the process.
 */
export function openPostgresPool(
  connectionString: string,
  onIdleError: (error: Error) => void = () => {},
): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    connectionTimeoutMillis: postgresBounds.connectMs,
    statement_timeout: postgresBounds.statementMs,
    query_timeout: postgresBounds.answerMs,
    keepAlive: true,
  });
  pool.on('error', onIdleError);
  return pool;
}

/**
 * Two batches of creates run at a time; the creates asked for meanwhile go out together when one
 * ends. On a durable PostgreSQL (fsync on) each batch waits for its commit's flush: with one batch
 * in flight the server waits on it with nothing to do, while two in flight carry more creates per
 * second (a third gained nothing), at the price of smaller batches and a little more of
 * PostgreSQL's CPU per create (ARCHITECTURE.md, "The hot path"). The next batch goes to PostgreSQL before the answers of the last are written
 * (see batcher), so that its statement and its flush overlap this process's work on those answers.
 * A batch still running after `stalledAfterMs` (a lock, a dead connection) lets the
 * next one go, so stalled batches do not hold back every create. The claims of nonces that no
 * write carries go out in batches the same way (nonces/postgres-nonces.ts).
 */
export const postgresBatches: BatcherOptions = {
  maxInFlight: 2,
  maxBatchSize: 100,
  stalledAfterMs: 20,
};

/**
 * Runs `work` on one client between BEGIN and COMMIT, or ROLLBACK when it throws (the error is
 * rethrown), and always gives the client back; a client whose ROLLBACK failed is destroyed rather
 * than returned, so a broken connection never serves the next request.
 */
export async function inPostgresTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    try {
      await client.query('ROLLBACK');
    } catch (rollbackError) {
      broken = rollbackError as Error;
    }
    throw error;
  } finally {
    client.release(broken);
  }
}

/** Any fixed number: the key of the advisory lock that serializes migrations across processes. */
const migrationLockKey = 7_240_611;

/**
 * Applies the migrations not yet recorded in `schema_migrations` (see wasApplied), each in its
 * own transaction. An advisory lock makes servers starting together on one PostgreSQL take turns.
 * Returns the versions it applied.
 */
export async function migratePostgres(
  pool: pg.Pool,
  migrations: readonly Migration[],
): Promise<number[]> {
  const applied: number[] = [];
  for (const migration of migrations) {
    const didApply = await inPostgresTransaction(pool, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1)', [migrationLockKey]);
      await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version integer PRIMARY KEY,
        name text NOT NULL,
        checksum text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
      const { rows } = await client.query<{ checksum: string }>(
        'SELECT checksum FROM schema_migrations WHERE version = $1',
        [migration.version],
      );
      if (wasApplied(migration, rows[0]?.checksum)) return false;
      // Without parameters pg uses the simple query protocol, which runs several statements.
      await client.query(migration.sql);
      await client.query(
        'INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)',
        [migration.version, migration.name, migration.checksum],
      );
      return true;
    });
    if (didApply) applied.push(migration.version);
  }
  return applied;
}
