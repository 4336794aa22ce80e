import type {
  AccountDetails,
  AccountType,
  StoredAccount,
  StoredUser,
  UserDetails,
} from '../types.js';

/**
 * The one place where the snake_case columns of `users` and `accounts` meet the camelCase types of
 * ./types.ts, for both engines. A user row holds the keys that recognize a person in columns
 * (email, mobile number, Ghana Card number) and every other detail in one JSON document,
 * `details`, written and read whole; an account row holds what makes it the same account (its
 * type and number: `sameAccount` of `@institution-api/runtime/rules`) in columns and every other
 * field of the account in a document of its own. What the spec's `UserInput` carries, this file
 * does not list (spec: Assumptions, "Details follow the spec"). What the two engines store
 * differently (timestamps, the documents array, the JSON documents) passes through a
 * {@link ColumnCodec}, one per engine.
 */

/** How one engine stores the values that SQL types do not share. */
export interface ColumnCodec<StoredDocument = unknown> {
  /** The details document as a query parameter. */
  toDocument(document: Record<string, unknown>): StoredDocument;
  fromDocument(value: unknown): Record<string, unknown>;
  fromTimestamp(value: unknown): Date;
  fromTextArray(value: unknown): string[];
}

/** The writable columns of `users`, in the order of {@link userColumnValues}. */
export const userWritableColumns = [
  'email',
  'mobile_number',
  'ghana_card_number',
  'details',
] as const;

/** A writable column of `users`. */
export type UserWritableColumn = (typeof userWritableColumns)[number];

/**
 * The {@link userWritableColumns} of these details, by column name: the keys, and the rest of the
 * details (the account aside, which has a table of its own) as the document. One object of one
 * shape for every user, as PostgreSQL's batched create takes it in JSON.
 */
export function userColumnRecord<StoredDocument>(
  details: UserDetails,
  codec: ColumnCodec<StoredDocument>,
): Record<UserWritableColumn, string | StoredDocument> {
  const { email, mobileNumber, ghanaCardNumber, account: _account, ...document } = details;
  return {
    email,
    mobile_number: mobileNumber,
    ghana_card_number: ghanaCardNumber,
    details: codec.toDocument(document),
  };
}

/** The values of {@link userWritableColumns} for these details, in that order, as query parameters. */
export function userColumnValues<StoredDocument>(
  details: UserDetails,
  codec: ColumnCodec<StoredDocument>,
): (string | StoredDocument)[] {
  const record = userColumnRecord(details, codec);
  return userWritableColumns.map((column) => record[column]);
}

/** The columns of `users` a read gives. */
export interface UserColumns {
  id: string;
  email: string;
  mobile_number: string;
  ghana_card_number: string;
  details: unknown;
  documents: unknown;
  created_at: unknown;
}

/** The columns of {@link UserColumns}, in that order. */
const userColumnNames = [
  'id',
  ...userWritableColumns,
  'documents',
  'created_at',
] as const satisfies readonly (keyof UserColumns)[];

/** `u.id, u.email, …`: the {@link UserColumns} of table `alias`, for SELECT and RETURNING lists. */
export const userColumns = (alias: string) =>
  userColumnNames.map((column) => `${alias}.${column}`).join(', ');

/** The columns of `accounts` a read gives, prefixed `account_` to sit beside a user's. */
export interface AccountColumns {
  account_id: string;
  account_type: AccountType;
  account_number: string;
  account_details: unknown;
  account_created_at: unknown;
}

/**
 * A user with its account, as a LEFT JOIN gives it: all account columns, or all null (absent when
 * the row was put together from a user alone).
 */
export type UserRow = UserColumns & {
  [Column in keyof AccountColumns]?: AccountColumns[Column] | null;
};

/** The columns of {@link AccountColumns} without their prefix, for SELECT and RETURNING lists. */
export const accountColumns = ['id', 'type', 'number', 'details', 'created_at'];

/** The writable columns of `accounts` beside its user, in the order of {@link accountValues}. */
export const accountWritableColumns = ['type', 'number', 'details'] as const;

/**
 * An account as the query parameters type, number and the document of its other fields (all
 * null: none).
 */
export function accountValues<StoredDocument>(
  account: AccountDetails | null,
  codec: ColumnCodec<StoredDocument>,
): (string | StoredDocument | null)[] {
  if (!account) return [null, null, null];
  const { accountType, accountNumber, ...document } = account;
  return [accountType, accountNumber, codec.toDocument(document)];
}

/**
 * The conflict clause of an insert into `accounts` (the stored row is `old`): a user has one
 * account, so the insert updates it. The same payout account (type and number unchanged: the rule
 * `sameAccount` of `@institution-api/runtime/rules`, which the storage tests hold this SQL to) keeps
 * its id and creation time with its new details; any other replaces it, with the new id and time
 * of `excluded` (see Storage.updateUser).
 */
export const accountUpsert = (old: string) => `ON CONFLICT (user_id) DO UPDATE SET
  id = CASE WHEN ${old}.type = excluded.type AND ${old}.number = excluded.number
    THEN ${old}.id ELSE excluded.id END,
  created_at = CASE WHEN ${old}.type = excluded.type AND ${old}.number = excluded.number
    THEN ${old}.created_at ELSE excluded.created_at END,
  type = excluded.type, number = excluded.number, details = excluded.details`;

/** `a.id AS account_id, …`: the account columns of table `alias` under their prefixed names. */
export function prefixedAccountColumns(alias: string): string {
  return accountColumns.map((column) => `${alias}.${column} AS account_${column}`).join(', ');
}

/**
 * A row of {@link UserRow} as the storage contract's StoredUser: the document's details as they
 * were stored (a field the spec added since has none; the HTTP layer answers its absent value),
 * then the columns.
 */
export function toStoredUser(row: UserRow, codec: ColumnCodec): StoredUser {
  return {
    ...(codec.fromDocument(row.details) as Omit<StoredUser, 'id'>),
    id: row.id,
    email: row.email,
    mobileNumber: row.mobile_number,
    ghanaCardNumber: row.ghana_card_number,
    documents: codec.fromTextArray(row.documents),
    createdAt: codec.fromTimestamp(row.created_at),
    account: row.account_id == null ? null : toStoredAccount(row as AccountColumns, codec),
  };
}

/**
 * An account row as stored: its document's fields as they were stored (a field the spec added
 * since has none; the HTTP layer answers its absent value), then its columns.
 */
function toStoredAccount(row: AccountColumns, codec: ColumnCodec): StoredAccount {
  return {
    ...codec.fromDocument(row.account_details),
    accountType: row.account_type,
    accountNumber: row.account_number,
    id: row.account_id,
    createdAt: codec.fromTimestamp(row.account_created_at),
  };
}
