/**
 * How the service normalizes what it stores (spec: "Assumptions", "mobileNumber",
 * "ghanaCardNumber", "MOMO accounts", and updateUser: "update replaces every detail").
 *
 * @module
 */
import type { UserInput } from '../index.js';
import { type UserDetailsModel, userDetailsModel, withDefaults } from '../user-details.js';

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

/**
 * The details the service stores for a valid request body, in the request's shape: numbers in
 * their normalized form, and every optional field that is absent given its absent value as the
 * spec's schemas say (null, `false`, a kyc of nulls: Assumptions, "Absent fields"), because an
 * update replaces the details (spec: updateUser). The fields come from `model` (the bundled
 * spec's unless another is given), never from a list here, so a field the spec adds is stored
 * with no change (Assumptions, "Details follow the spec"). A MOMO account number is a mobile
 * number; the account fields of another variant are left out.
 */
export function storedDetails(
  input: UserInput,
  model: UserDetailsModel = userDetailsModel,
): UserInput {
  const details = withDefaults(
    model.input.filter((field) => !field.account),
    input as unknown as Record<string, unknown>,
  );
  details.mobileNumber = normalizedMobile(String(details.mobileNumber));
  details.ghanaCardNumber = normalizedCard(String(details.ghanaCardNumber));
  // No account: the account fields are absent or null (the "No account" variant).
  for (const field of model.input) {
    if (!field.account) continue;
    if (details[field.name] === null || details.accountType == null) delete details[field.name];
  }
  if (details.accountType === 'MOMO') {
    details.accountNumber = normalizedMobile(String(details.accountNumber));
    delete details.bankName;
  }
  if (details.accountType === 'BANK') delete details.network;
  return details as unknown as UserInput;
}
