/**
 * The users' columns as PostgreSQL holds them, shared by the creates (postgres-users.ts) and the
 * updates (postgres-user-updates.ts).
 *
 * @module
 */
import type { ConflictError } from '../types.js';
import type { ColumnCodec, UserWritableColumn } from './user-rows.js';

/**
 * PostgreSQL's side of the column types (see migrations/postgres/), as pg reads them: the details
 * document is jsonb, which pg parses; written as the object itself (pg sends a parameter object as
 * JSON, and the batched create's JSON array holds it as it is).
 */
export const postgresCodec: ColumnCodec<Record<string, unknown>> = {
  toDocument: (document) => document,
  fromDocument: (value) => value as Record<string, unknown>,
  fromTimestamp: (value) => value as Date,
  fromTextArray: (value) => value as string[],
};

/** Unique constraints of migrations/postgres/0001_initial.sql whose violation is the client's. */
export const conflictFieldByConstraint: Record<string, ConflictError['field']> = {
  users_email_key: 'email',
  users_ghana_card_number_key: 'ghanaCardNumber',
};

/** The SQL type of each writable column, for reading it out of a JSON batch. */
const userColumnTypes: Record<UserWritableColumn, string> = {
  email: 'text',
  mobile_number: 'text',
  ghana_card_number: 'text',
  details: 'jsonb',
};

/**
 * The fields of one user's write in a batch's JSON array (postgres-batch.ts): its place `i`, the
 * user, the institution, the writable columns and the account's. A create adds its account's new id.
 */
export const userWriteFields = {
  i: 'integer',
  id: 'uuid',
  institution_id: 'uuid',
  ...userColumnTypes,
  account_type: 'text',
  account_number: 'text',
  account_details: 'jsonb',
};
