import { type Recognition, recognize } from '@institution-api/runtime/rules';
import { ExistsWithOtherDetailsError } from '../types.js';

/**
 * The rule book's `recognize` (spec: Assumptions, "Existing users"), its refusal thrown as
 * ExistsWithOtherDetailsError, which reveals nothing stored, for the HTTP layer's `409`.
 */
export function recognizeOrRefuse(
  existing: { isMember: boolean; mobileNumber: string },
  requestedMobileNumber: string,
): Exclude<Recognition, 'exists-with-other-details'> {
  const recognition = recognize(existing, requestedMobileNumber);
  if (recognition === 'exists-with-other-details') throw new ExistsWithOtherDetailsError();
  return recognition;
}
