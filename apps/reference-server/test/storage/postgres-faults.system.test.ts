import { describe, expect, it } from 'vitest';
import { postgresFault } from '../../src/storage/health/postgres-faults.js';

/** An error as pg raises it: a message and, from the server, a SQLSTATE `code`. */
const pgError = (message: string, code?: string) => Object.assign(new Error(message), { code });

describe('postgresFault', () => {
  it.each([
    ['08006', 'connection_failure'],
    ['53100', 'disk_full'],
    ['53300', 'too_many_connections'],
    ['57P01', 'admin_shutdown (pg_ctl stop, pg_terminate_backend)'],
    ['57P03', 'cannot_connect_now (starting up)'],
    ['57014', 'query_canceled (statement_timeout)'],
    ['55P03', 'lock_not_available (lock_timeout)'],
    ['25006', 'read_only_sql_transaction (a standby)'],
    ['58030', 'io_error'],
  ])('calls SQLSTATE %s (%s) unavailable', (code) => {
    expect(postgresFault(pgError('from the server', code))).toBeTypeOf('string');
  });

  it.each(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND'])(
    'calls the socket error %s unavailable',
    (code) => {
      expect(postgresFault(pgError(`connect ${code} 127.0.0.1:5432`, code))).toMatch(code);
    },
  );

  it.each([
    'Connection terminated unexpectedly',
    'Connection terminated due to connection timeout',
    'timeout exceeded when trying to connect',
    'Query read timeout',
    'Client has encountered a connection error and is not queryable',
  ])('calls the driver message "%s" unavailable', (message) => {
    expect(postgresFault(pgError(message))).toBeTypeOf('string');
  });

  it.each([
    ['23505', 'unique_violation our SQL did not expect'],
    ['42601', 'syntax_error'],
    ['22P02', 'invalid_text_representation'],
    ['40P01', 'deadlock_detected: a fault of our lock order'],
    ['XX000', 'internal_error'],
  ])('leaves SQLSTATE %s (%s) a bug: 500', (code) => {
    expect(postgresFault(pgError('from the server', code))).toBeUndefined();
  });

  it('leaves errors of our own code a bug', () => {
    expect(postgresFault(new TypeError('Cannot read properties of undefined'))).toBeUndefined();
    expect(postgresFault('not an error')).toBeUndefined();
  });
});
