import type {
  AccountType,
  MobileNetwork,
  StoredAccount,
  StoredUser,
  UserDetails,
} from './types.js';

/**
 * The one place where the snake_case columns of `users` and `accounts` meet the camelCase types of
 * ./types.ts, for both engines. What the two engines store differently (booleans, timestamps, the
 * documents array) passes through a {@link ColumnCodec}, one per engine.
 */

/** How one engine stores the values that SQL types do not share. */
export interface ColumnCodec<StoredBoolean = unknown> {
  /** A boolean as a query parameter. */
  toBoolean(value: boolean): StoredBoolean;
  fromBoolean(value: unknown): boolean;
  fromTimestamp(value: unknown): Date;
  fromTextArray(value: unknown): string[];
}

/** The writable columns of `users`, in the order of {@link userColumnValues}. */
export const userWritableColumns = [
  'email',
  'first_name',
  'last_name',
  'other_name',
  'gender',
  'date_of_birth',
  'mobile_number',
  'ghana_card_number',
  'monthly_income',
  'is_ghana_card_verified',
  'image',
  'ghana_card_image',
  'kyc_occupation',
  'kyc_address',
  'kyc_valid_from',
  'kyc_valid_to',
  'kyc_ref_number',
] as const;

/**
 * The {@link userWritableColumns} of these details, by column name: one object of one shape for
 * every user (a literal, so the engine lays it out once), as PostgreSQL's batched create takes it
 * in JSON.
 */
export function userColumnRecord<StoredBoolean>(
  details: UserDetails,
  codec: ColumnCodec<StoredBoolean>,
): Record<(typeof userWritableColumns)[number], string | number | null | StoredBoolean> {
  const { kyc } = details;
  return {
    email: details.email,
    first_name: details.firstName,
    last_name: details.lastName,
    other_name: details.otherName,
    gender: details.gender,
    date_of_birth: details.dateOfBirth,
    mobile_number: details.mobileNumber,
    ghana_card_number: details.ghanaCardNumber,
    monthly_income: details.monthlyIncome,
    is_ghana_card_verified: codec.toBoolean(details.isGhanaCardVerified),
    image: details.image,
    ghana_card_image: details.ghanaCardImage,
    kyc_occupation: kyc.occupation,
    kyc_address: kyc.address,
    kyc_valid_from: kyc.validFrom,
    kyc_valid_to: kyc.validTo,
    kyc_ref_number: kyc.refNumber,
  };
}

/** The values of {@link userWritableColumns} for these details, in that order, as query parameters. */
export function userColumnValues<StoredBoolean>(
  details: UserDetails,
  codec: ColumnCodec<StoredBoolean>,
): (string | number | null | StoredBoolean)[] {
  const record = userColumnRecord(details, codec);
  return userWritableColumns.map((column) => record[column]);
}

/** The columns of `users` a read gives, dates as 'YYYY-MM-DD' text. */
export interface UserColumns {
  id: string;
  email: string;
  first_name: string;
  last_name: string;
  other_name: string | null;
  gender: string | null;
  date_of_birth: string | null;
  mobile_number: string;
  ghana_card_number: string;
  monthly_income: number;
  is_ghana_card_verified: unknown;
  image: string | null;
  ghana_card_image: string | null;
  kyc_occupation: string | null;
  kyc_address: string | null;
  kyc_valid_from: string | null;
  kyc_valid_to: string | null;
  kyc_ref_number: string | null;
  documents: unknown;
  created_at: unknown;
}

/** The columns of `accounts` a read gives, prefixed `account_` to sit beside a user's. */
export interface AccountColumns {
  account_id: string;
  account_type: AccountType;
  account_number: string;
  account_network: MobileNetwork | null;
  account_bank_name: string | null;
  account_name: string;
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
export const accountColumns = [
  'id',
  'type',
  'number',
  'network',
  'bank_name',
  'name',
  'created_at',
];

/** `a.id AS account_id, …`: the account columns of table `alias` under their prefixed names. */
export function prefixedAccountColumns(alias: string): string {
  return accountColumns.map((column) => `${alias}.${column} AS account_${column}`).join(', ');
}

/** A row of {@link UserRow} as the storage contract's StoredUser. */
export function toStoredUser(row: UserRow, codec: ColumnCodec): StoredUser {
  return {
    id: row.id,
    email: row.email,
    firstName: row.first_name,
    lastName: row.last_name,
    otherName: row.other_name,
    gender: row.gender,
    dateOfBirth: row.date_of_birth,
    mobileNumber: row.mobile_number,
    ghanaCardNumber: row.ghana_card_number,
    monthlyIncome: row.monthly_income,
    isGhanaCardVerified: codec.fromBoolean(row.is_ghana_card_verified),
    image: row.image,
    ghanaCardImage: row.ghana_card_image,
    kyc: {
      occupation: row.kyc_occupation,
      address: row.kyc_address,
      validFrom: row.kyc_valid_from,
      validTo: row.kyc_valid_to,
      refNumber: row.kyc_ref_number,
    },
    documents: codec.fromTextArray(row.documents),
    createdAt: codec.fromTimestamp(row.created_at),
    account: row.account_id == null ? null : toStoredAccount(row as AccountColumns, codec),
  };
}

function toStoredAccount(row: AccountColumns, codec: ColumnCodec): StoredAccount {
  return {
    id: row.account_id,
    type: row.account_type,
    number: row.account_number,
    network: row.account_network,
    bankName: row.account_bank_name,
    name: row.account_name,
    createdAt: codec.fromTimestamp(row.account_created_at),
  };
}
