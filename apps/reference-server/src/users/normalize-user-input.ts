import type { UserInput } from '@institution-api/types';
import type { AccountDetails, UserDetails } from '../storage/types.js';

/**
 * A Ghanaian mobile number in the international form the service stores and returns,
 * `+233XXXXXXXXX` (DECISIONS.md "mobileNumber"). The input has passed the spec's
 * `GhanaMobileNumber` pattern, so it is `0`, `233` or `+233` followed by the 9-digit national part.
 */
export function normalizeMobileNumber(value: string): string {
  return `+233${value.slice(-9)}`;
}

/**
 * A Ghana Card number as stored and returned, `GHA-123456789-0`: upper case, with both dashes
 * (DECISIONS.md "ghanaCardNumber"). It is also the key that recognizes an existing user, so
 * `gha1234567890` and `GHA-123456789-0` must become the same string.
 */
export function normalizeGhanaCardNumber(value: string): string {
  const digits = value.replaceAll('-', '').slice(3);
  return `GHA-${digits.slice(0, 9)}-${digits.slice(9)}`;
}

/**
 * The validated request body (spec: `UserInput`) as the complete details storage keeps.
 *
 * Every optional field that is absent becomes its empty value (null, `false`, a kyc object of
 * nulls), because update REPLACES a user's details (spec: updateUser; DECISIONS.md). Numbers are
 * normalized as above; a MOMO account number is a mobile number too ("MOMO accounts").
 */
export function normalizeUserInput(input: UserInput): UserDetails {
  return {
    email: input.email,
    firstName: input.firstName,
    lastName: input.lastName,
    otherName: input.otherName ?? null,
    gender: input.gender ?? null,
    dateOfBirth: input.dateOfBirth ?? null,
    mobileNumber: normalizeMobileNumber(input.mobileNumber),
    ghanaCardNumber: normalizeGhanaCardNumber(input.ghanaCardNumber),
    monthlyIncome: input.monthlyIncome,
    isGhanaCardVerified: input.isGhanaCardVerified ?? false,
    image: input.image ?? null,
    ghanaCardImage: input.ghanaCardImage ?? null,
    kyc: {
      occupation: input.kyc?.occupation ?? null,
      address: input.kyc?.address ?? null,
      validFrom: input.kyc?.validFrom ?? null,
      validTo: input.kyc?.validTo ?? null,
      refNumber: input.kyc?.refNumber ?? null,
    },
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
