/**
 * Which errors of PostgreSQL and of the pg driver are faults of the infrastructure (503), by
 * SQLSTATE class where the server sent one, by the socket's error code, or by the few messages pg
 * raises without a code. Anything else (a constraint our SQL did not expect, a syntax error, a
 * TypeError) is a bug and stays a 500.
 * @see https://www.postgresql.org/docs/15/errcodes-appendix.html
 */

/** SQLSTATE classes and codes that say the database cannot serve the call now. */
const unavailableStates: [prefix: string, reason: string][] = [
  ['08', 'the connection to PostgreSQL failed'], // connection_exception
  ['53100', 'PostgreSQL has no disk space left'], // disk_full
  ['53300', 'PostgreSQL has too many connections'], // too_many_connections
  ['53', 'PostgreSQL is out of resources'], // insufficient_resources
  ['57P01', 'PostgreSQL is shutting down'], // admin_shutdown
  ['57P02', 'PostgreSQL crashed'], // crash_shutdown
  ['57P03', 'PostgreSQL is starting up or in recovery'], // cannot_connect_now
  ['57014', 'a statement ran past statement_timeout'], // query_canceled
  ['55P03', 'a lock wait ran past lock_timeout'], // lock_not_available
  ['25006', 'PostgreSQL is read-only'], // read_only_sql_transaction (a standby)
  ['58', 'PostgreSQL had an I/O error'], // system_error, io_error
];

/** Error codes of Node's sockets and DNS on the way to PostgreSQL. */
const networkCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** What pg says, without a code, of a connection that broke, timed out or was never made. */
const driverMessages: [RegExp, string][] = [
  [/^Connection terminated/, 'the connection to PostgreSQL was closed'],
  [/^timeout exceeded when trying to connect$/, 'no PostgreSQL connection within the bound'],
  [/^Query read timeout$/, 'PostgreSQL did not answer within the bound'],
  [/is not queryable$/, 'the connection to PostgreSQL failed'],
  [/^Cannot use a pool after calling end on the pool$/, 'the server is stopping'],
];

/**
 * The reason `error` is a fault of PostgreSQL's availability, or undefined when it is not (see the
 * module comment). A batch's error is classified the same way (see users/postgres-users.ts).
 */
export function postgresFault(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const { code } = error as { code?: unknown };
  if (typeof code === 'string') {
    if (/^[0-9A-Z]{5}$/.test(code)) {
      return unavailableStates.find(([prefix]) => code.startsWith(prefix))?.[1];
    }
    if (networkCodes.has(code)) return `PostgreSQL cannot be reached (${code})`;
  }
  return driverMessages.find(([pattern]) => pattern.test(error.message))?.[1];
}
