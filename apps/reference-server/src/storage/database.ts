/**
 * The little the storage needs from a database, so that the same SQL runs on embedded PGlite and on
 * PostgreSQL through pg (issue: "the same SQL on both"). Rows come back as the drivers parse them;
 * the SQL casts anything the two drivers would parse differently (bigint counts, dates).
 */
export interface Queryable {
  /** One statement with $1… parameters. */
  query<Row>(sql: string, params?: readonly unknown[]): Promise<Row[]>;
  /** Several statements without parameters (a migration file). */
  exec(sql: string): Promise<void>;
}

/** A database: single statements, transactions, and an end. */
export interface Database extends Queryable {
  /**
   * Runs `work` in one transaction: COMMIT when it resolves, ROLLBACK when it throws (the error is
   * rethrown). Concurrent transactions are isolated as PostgreSQL's READ COMMITTED isolates them.
   */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** SQLSTATE and constraint of a PostgreSQL error, as both pg and PGlite report them. */
export interface PostgresErrorFields {
  code: string;
  constraint?: string | undefined;
}

/** Whether `error` is a PostgreSQL error with this SQLSTATE (e.g. '23505' unique_violation). */
export function isPostgresError(error: unknown, code: string): error is PostgresErrorFields {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}
