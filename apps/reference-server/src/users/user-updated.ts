import { answerOf, userDetailsModel } from '@institution-api/runtime/user-details';
import type { UserUpdated } from '@institution-api/types';
import type { StoredUser } from '../storage/types.js';
import { answerParts } from './user-answer.js';

/**
 * A stored user in the update response shape (spec: `UserUpdated`, its account `AccountUpdated`):
 * each key the schemas list, in their order, as the details model reads them (the profile image as
 * `image`, `dateOfBirth` as a date-time, `monthlyIncome`, no `documents`, the account's keys in
 * camelCase; spec: Assumptions, "Details follow the spec"), with the service's own `id`,
 * `createdAt` and the account's. A key the schema does not require is left out when it has no
 * value: the account's `bankName` of a `MOMO` account.
 */
export function toUserUpdated(user: StoredUser): UserUpdated {
  const { details, own } = answerParts(user);
  return answerOf(userDetailsModel, 'updated', details, own) as UserUpdated;
}
