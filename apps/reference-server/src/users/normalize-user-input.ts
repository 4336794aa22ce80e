import type { UserInput } from '@institution-api/types';
import { presentValue, userDetailsModel } from '@institution-api/types/user-details';
import type { AccountDetails, UserDetails } from '../storage/types.js';

/** The request's fields but the payout account's (spec: the properties of `UserInput`'s variants). */
const detailFields = userDetailsModel.input.filter((field) => !field.account);

/**
 * A Ghanaian mobile number in the international form the service stores and returns,
 * `+233XXXXXXXXX` (spec: Assumptions, "mobileNumber"). The input has passed the spec's
 * `GhanaMobileNumber` pattern, so it is `0`, `233` or `+233` followed by the 9-digit national part.
 */
export function normalizeMobileNumber(value: string): string {
  return `+233${value.slice(-9)}`;
}

/**
 * A Ghana Card number as stored and returned, `GHA-123456789-0`: upper case, with both dashes
 * (spec: Assumptions, "ghanaCardNumber"). It is also the key that recognizes an existing user, so
 * `gha1234567890` and `GHA-123456789-0` must become the same string.
 */
export function normalizeGhanaCardNumber(value: string): string {
  const digits = value.replaceAll('-', '').slice(3);
  return `GHA-${digits.slice(0, 9)}-${digits.slice(9)}`;
}

/**
 * The validated request body (spec: `UserInput`) as the complete details storage keeps: every
 * field of the request, each optional one that is absent given its absent value (spec:
 * Assumptions, "Absent fields": null, `false`, a kyc object of nulls), because update REPLACES a
 * user's details (spec: updateUser). The fields are the spec's, not listed here, so a field it
 * adds is kept too. Numbers are normalized as above; the account fields become `account`, whose
 * number is a mobile number for MOMO (spec: Assumptions, "MOMO accounts").
 */
export function normalizeUserInput(input: UserInput): UserDetails {
  const body = input as Readonly<Record<string, unknown>>;
  const details: Record<string, unknown> = {};
  for (const field of detailFields) {
    const value = presentValue(field, body[field.name]);
    if (value !== undefined) details[field.name] = value;
  }
  return {
    ...(details as Omit<UserDetails, 'account'>),
    mobileNumber: normalizeMobileNumber(input.mobileNumber),
    ghanaCardNumber: normalizeGhanaCardNumber(input.ghanaCardNumber),
    account: accountOf(input),
  };
}

function accountOf(input: UserInput): AccountDetails | null {
  switch (input.accountType) {
    case 'MOMO':
      return {
        type: 'MOMO',
        number: normalizeMobileNumber(input.accountNumber),
        network: input.network,
        bankName: null,
        name: input.accountName,
      };
    case 'BANK':
      return {
        type: 'BANK',
        number: input.accountNumber,
        network: null,
        bankName: input.bankName,
        name: input.accountName,
      };
    default:
      return null;
  }
}
