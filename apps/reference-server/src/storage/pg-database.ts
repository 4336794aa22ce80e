import pg from 'pg';
import type { Database, Queryable } from './database.js';

/**
 * Connects to PostgreSQL through a pg Pool (DATABASE_URL=postgres://…). A transaction holds one
 * client from BEGIN to COMMIT or ROLLBACK and always gives it back; a client whose ROLLBACK failed
 * is destroyed rather than returned, so a broken connection never serves the next request.
 *
 * `onIdleError` hears errors of idle connections (e.g. the server restarted): the pool drops such a
 * client and opens a new one on the next query; without a listener Node would end the process.
 */
export function openPgDatabase(
  connectionString: string,
  onIdleError: (error: Error) => void = () => {},
): Database {
  const pool = new pg.Pool({ connectionString });
  pool.on('error', onIdleError);
  return {
    query: (sql, params) => runQuery(pool, sql, params),
    exec: (sql) => runExec(pool, sql),
    async transaction(work) {
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        await client.query('BEGIN');
        const result = await work(asQueryable(client));
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
    },
    close: () => pool.end(),
  };
}

function asQueryable(client: pg.PoolClient): Queryable {
  return {
    query: (sql, params) => runQuery(client, sql, params),
    exec: (sql) => runExec(client, sql),
  };
}

async function runQuery<Row>(
  target: pg.Pool | pg.PoolClient,
  sql: string,
  params: readonly unknown[] = [],
): Promise<Row[]> {
  const result = await target.query(sql, [...params]);
  return result.rows as Row[];
}

/** Without parameters pg uses the simple query protocol, which runs several statements. */
async function runExec(target: pg.Pool | pg.PoolClient, sql: string): Promise<void> {
  await target.query(sql);
}
