import { accountOf, storedDetails, withoutAccount } from '@institution-api/runtime/rules';
import type { UserInput } from '@institution-api/types';
import type { AccountDetails, UserDetails } from '../storage/types.js';

/**
 * The validated request body (spec: `UserInput`) as the complete details storage keeps, by the
 * one rule book (`@institution-api/runtime/rules`, `storedDetails`): every field of the request,
 * each optional one that is absent given its absent value (spec: Assumptions, "Absent fields"),
 * because update replaces a user's details (spec: updateUser); the numbers normalized, a MOMO
 * account number as a mobile number (spec: Assumptions, "MOMO accounts"). The account's fields,
 * by their request names, are gathered into `account`. The fields are the spec's, not listed
 * here, so a field it adds, of the account too, is kept.
 */
export function normalizeUserInput(input: UserInput): UserDetails {
  const details = storedDetails(input) as unknown as Record<string, unknown>;
  return {
    ...(withoutAccount(details) as Omit<UserDetails, 'account'>),
    account: accountOf(details) as AccountDetails | null,
  };
}
