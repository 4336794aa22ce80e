import { ExistsWithOtherDetailsError } from '../types.js';

/** What a create that names an existing user's Ghana Card number does. */
export type Recognition =
  /** The user already belongs to the calling institution: answer its stored details. */
  | 'member'
  /** Another institution's user, and the request carries its mobile number: add it, answer it. */
  | 'join';

/**
 * The rule of spec Assumptions, "Existing users": the card number alone does not let an
 * institution reach another's customer; it must also know the customer's mobile number. Both
 * numbers are compared in their normalized forms (`+233XXXXXXXXX`), as stored. Another
 * institution's user without its mobile number is refused with ExistsWithOtherDetailsError, which
 * reveals nothing stored.
 */
export function recognize(
  existing: { isMember: boolean; mobileNumber: string },
  requestedMobileNumber: string,
): Recognition {
  if (existing.isMember) return 'member';
  if (existing.mobileNumber === requestedMobileNumber) return 'join';
  throw new ExistsWithOtherDetailsError();
}
