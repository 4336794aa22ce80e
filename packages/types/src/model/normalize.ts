/**
 * How the service normalizes what it stores (spec: "Assumptions", "mobileNumber",
 * "ghanaCardNumber", "MOMO accounts", and updateUser: "update replaces every detail").
 *
 * @module
 */
import type { UserInput } from '../index.js';

/**
 * A Ghanaian mobile number as the service stores and returns it, `+233XXXXXXXXX`. The value has
 * passed the spec's `GhanaMobileNumber` pattern: `0`, `233` or `+233`, then the 9-digit national part.
 */
export function normalizedMobile(value: string): string {
  return `+233${value.slice(-9)}`;
}

/**
 * A Ghana Card number as the service stores and returns it, `GHA-123456789-0`: dashes and letter
 * case are optional on input (spec: `GhanaCardNumber`), so `gha1234567890` is the same card.
 */
export function normalizedCard(value: string): string {
  const digits = value.replace(/\D/g, '');
  return `GHA-${digits.slice(0, 9)}-${digits.slice(9)}`;
}

/** The account fields of a request, which one variant of `UserInput.oneOf` fills. */
const accountFields = ['accountType', 'accountNumber', 'accountName', 'network', 'bankName'];

/**
 * The details the service stores for a valid request body, in the request's shape: numbers in
 * their normalized form, and every optional field that is absent cleared (null, `false`, a kyc of
 * nulls), because an update replaces the details (spec: updateUser). A MOMO account number is a
 * mobile number; the account fields of another variant are left out.
 */
export function storedDetails(input: UserInput): UserInput {
  const kyc = input.kyc ?? {};
  const details: Record<string, unknown> = {
    ...input,
    otherName: input.otherName ?? null,
    gender: input.gender ?? null,
    dateOfBirth: input.dateOfBirth ?? null,
    mobileNumber: normalizedMobile(input.mobileNumber),
    ghanaCardNumber: normalizedCard(input.ghanaCardNumber),
    isGhanaCardVerified: input.isGhanaCardVerified ?? false,
    image: input.image ?? null,
    ghanaCardImage: input.ghanaCardImage ?? null,
    kyc: {
      occupation: kyc.occupation ?? null,
      address: kyc.address ?? null,
      validFrom: kyc.validFrom ?? null,
      validTo: kyc.validTo ?? null,
      refNumber: kyc.refNumber ?? null,
    },
  };
  // No account: the account fields are absent or null (the "No account" variant).
  for (const name of accountFields) {
    if (details[name] === null || details.accountType == null) delete details[name];
  }
  if (details.accountType === 'MOMO') {
    details.accountNumber = normalizedMobile(String(details.accountNumber));
    delete details.bankName;
  }
  if (details.accountType === 'BANK') delete details.network;
  return details as UserInput;
}
