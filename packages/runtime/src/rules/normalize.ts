/**
 * How the service normalizes what it stores (spec: Assumptions, "mobileNumber",
 * "ghanaCardNumber", "MOMO accounts", "Absent fields", and updateUser: "Update replaces"). Pure
 * functions, the one copy the reference server, the mock and the conformance suite's model use.
 *
 * @module
 */
import type { UserInput } from '@institution-api/types';
import { presentValue, type UserDetailsModel, userDetailsModel } from '../user-details.js';

/**
 * A Ghanaian mobile number as the service stores and returns it, `+233XXXXXXXXX`. The value has
 * passed the spec's `GhanaMobileNumber` pattern: `0`, `233` or `+233`, then the 9-digit national part.
 */
export function normalizedMobile(value: string): string {
  return `+233${value.slice(-9)}`;
}

/**
 * A Ghana Card number as the service stores and returns it, `GHA-123456789-0`: dashes and letter
 * case are optional on input (spec: `GhanaCardNumber`), so `gha1234567890` is the same card. It
 * is the key that recognizes a person ({@link recognize}).
 */
export function normalizedCard(value: string): string {
  const digits = value.replace(/\D/g, '');
  return `GHA-${digits.slice(0, 9)}-${digits.slice(9)}`;
}

/**
 * The details the service stores for a valid request body, in the request's shape, its fields in
 * `model`'s order (the bundled spec's unless another is given): every field of `UserInput`, an
 * absent one given its absent value (null, `false`, a kyc of nulls: Assumptions, "Absent
 * fields"), because an update replaces the details (spec: updateUser); the numbers in their
 * normalized forms, a MOMO account number as a mobile number ("MOMO accounts"). The account's
 * fields are there, each absent one null, when the body names an account type, and none of them
 * when it names none (the "No account" variant). Fields come from `model`, never from a list
 * here, so a field the spec adds is stored with no change (Assumptions, "Details follow the
 * spec").
 */
export function storedDetails(
  input: UserInput,
  model: UserDetailsModel = userDetailsModel,
): UserInput {
  const body = input as unknown as Readonly<Record<string, unknown>>;
  const hasAccount = body[model.account.discriminator] != null;
  const details: Record<string, unknown> = {};
  for (const field of model.input) {
    if (field.account && !hasAccount) continue;
    const value = presentValue(field, body[field.name]);
    if (value !== undefined) details[field.name] = value;
  }
  details.mobileNumber = normalizedMobile(String(details.mobileNumber));
  details.ghanaCardNumber = normalizedCard(String(details.ghanaCardNumber));
  if (details.accountType === 'MOMO') {
    details.accountNumber = normalizedMobile(String(details.accountNumber));
  }
  return details as unknown as UserInput;
}

/** The account's field names of each model, found once: both functions below run per request. */
const accountFieldNames = new WeakMap<UserDetailsModel, readonly string[]>();
function accountFieldsOf(model: UserDetailsModel): readonly string[] {
  let names = accountFieldNames.get(model);
  if (!names) {
    names = model.input.filter((field) => field.account).map((field) => field.name);
    accountFieldNames.set(model, names);
  }
  return names;
}

/**
 * The account fields of stored details ({@link storedDetails}), by their request names, or null
 * when the user has no account.
 */
export function accountOf(
  details: Readonly<Record<string, unknown>>,
  model: UserDetailsModel = userDetailsModel,
): Record<string, unknown> | null {
  if (details[model.account.discriminator] == null) return null;
  const account: Record<string, unknown> = {};
  for (const name of accountFieldsOf(model)) account[name] = details[name];
  return account;
}

/** Stored details without their account fields. */
export function withoutAccount(
  details: Readonly<Record<string, unknown>>,
  model: UserDetailsModel = userDetailsModel,
): Record<string, unknown> {
  const account = accountFieldsOf(model);
  const rest: Record<string, unknown> = {};
  for (const name in details) {
    if (!account.includes(name)) rest[name] = details[name];
  }
  return rest;
}
