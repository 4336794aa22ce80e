import type { Queryable } from './database.js';
import type { AccountType, MobileNetwork, StoredUser, UserDetails } from './types.js';

/**
 * The one place where the snake_case columns of `users` and `accounts` meet the camelCase types of
 * ./types.ts. Dates are read with to_char, so that PGlite and pg (which would parse a `date` into a
 * local-time Date) both give 'YYYY-MM-DD'.
 */

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

/** The values of {@link userWritableColumns} for these details, as query parameters. */
export function userColumnValues(details: UserDetails): unknown[] {
  return [
    details.email,
    details.firstName,
    details.lastName,
    details.otherName,
    details.gender,
    details.dateOfBirth,
    details.mobileNumber,
    details.ghanaCardNumber,
    details.monthlyIncome,
    details.isGhanaCardVerified,
    details.image,
    details.ghanaCardImage,
    details.kyc.occupation,
    details.kyc.address,
    details.kyc.validFrom,
    details.kyc.validTo,
    details.kyc.refNumber,
  ];
}

interface UserColumns {
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
  is_ghana_card_verified: boolean;
  image: string | null;
  ghana_card_image: string | null;
  kyc_occupation: string | null;
  kyc_address: string | null;
  kyc_valid_from: string | null;
  kyc_valid_to: string | null;
  kyc_ref_number: string | null;
  documents: string[];
  created_at: Date;
}

interface AccountColumns {
  account_id: string;
  account_type: AccountType;
  account_number: string;
  account_network: MobileNetwork | null;
  account_bank_name: string | null;
  account_name: string;
  account_created_at: Date;
}

/** The LEFT JOIN gives either all account columns or none. */
type UserRow = UserColumns & (AccountColumns | { [Column in keyof AccountColumns]: null });

const selectUserSql = `
  SELECT u.id, u.email, u.first_name, u.last_name, u.other_name, u.gender,
    to_char(u.date_of_birth, 'YYYY-MM-DD') AS date_of_birth,
    u.mobile_number, u.ghana_card_number, u.monthly_income, u.is_ghana_card_verified,
    u.image, u.ghana_card_image, u.kyc_occupation, u.kyc_address,
    to_char(u.kyc_valid_from, 'YYYY-MM-DD') AS kyc_valid_from,
    to_char(u.kyc_valid_to, 'YYYY-MM-DD') AS kyc_valid_to,
    u.kyc_ref_number, u.documents, u.created_at,
    a.id AS account_id, a.type AS account_type, a.number AS account_number,
    a.network AS account_network, a.bank_name AS account_bank_name, a.name AS account_name,
    a.created_at AS account_created_at
  FROM users u LEFT JOIN accounts a ON a.user_id = u.id
  WHERE u.id = $1`;

/** Reads one user with its account; undefined when there is no such user. */
export async function selectUser(tx: Queryable, userId: string): Promise<StoredUser | undefined> {
  const [row] = await tx.query<UserRow>(selectUserSql, [userId]);
  return row && toStoredUser(row);
}

function toStoredUser(row: UserRow): StoredUser {
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
    isGhanaCardVerified: row.is_ghana_card_verified,
    image: row.image,
    ghanaCardImage: row.ghana_card_image,
    kyc: {
      occupation: row.kyc_occupation,
      address: row.kyc_address,
      validFrom: row.kyc_valid_from,
      validTo: row.kyc_valid_to,
      refNumber: row.kyc_ref_number,
    },
    documents: row.documents,
    createdAt: row.created_at,
    account:
      row.account_id === null
        ? null
        : {
            id: row.account_id,
            type: row.account_type,
            number: row.account_number,
            network: row.account_network,
            bankName: row.account_bank_name,
            name: row.account_name,
            createdAt: row.account_created_at,
          },
  };
}
