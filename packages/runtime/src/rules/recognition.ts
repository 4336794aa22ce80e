/**
 * Who a create reaches, and whether an update keeps the payout account (spec: Assumptions,
 * "Existing users"; createUser; `AccountCreated.id`). Pure functions, the one copy the reference
 * server, the mock and the conformance suite's model decide with; a storage that decides inside
 * its transaction in SQL is held to them by its tests.
 *
 * @module
 */

/** What a create that names an existing user's Ghana Card number does. */
export type Recognition =
  /** The user already belongs to the calling institution: `200` with its stored details. */
  | 'member'
  /** Another institution's user, and the request carries its mobile number: add it, `200`. */
  | 'join'
  /** Another institution's user without its mobile number: `409`, revealing nothing stored. */
  | 'exists-with-other-details';

/**
 * The rule of spec Assumptions, "Existing users": the card number alone does not let an
 * institution reach another's customer; it must also know the customer's mobile number. Both
 * numbers in their normalized forms (`+233XXXXXXXXX`, {@link normalizedMobile}), as stored.
 */
export function recognize(
  existing: { isMember: boolean; mobileNumber: string },
  requestedMobileNumber: string,
): Recognition {
  if (existing.isMember) return 'member';
  if (existing.mobileNumber === requestedMobileNumber) return 'join';
  return 'exists-with-other-details';
}

/**
 * The request fields that make a payout account the same account: its type and number. An update
 * that keeps both keeps the account's `id` and `created_at` with its new details; any other
 * account is a new one (spec: `AccountCreated.id`).
 */
export const accountIdentityFields = ['accountType', 'accountNumber'] as const;

/** Whether two accounts' stored details are the same account ({@link accountIdentityFields}). */
export function sameAccount(
  before: Readonly<Record<string, unknown>> | null,
  after: Readonly<Record<string, unknown>> | null,
): boolean {
  return (
    before !== null &&
    after !== null &&
    accountIdentityFields.every((field) => before[field] === after[field])
  );
}
