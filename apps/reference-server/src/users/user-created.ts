import { answerOf, userDetailsModel } from '@institution-api/runtime/user-details';
import type { UserCreated } from '@institution-api/types';
import type { StoredUser } from '../storage/types.js';
import { answerParts } from './user-answer.js';

/**
 * A stored user in the create response shape (spec: `UserCreated`, its account `AccountCreated`):
 * each key the schemas list, in their order, as the details model reads them (the profile image as
 * `userImage`, `dateOfBirth` as a date-time, no `monthlyIncome`, the account's keys in snake_case;
 * spec: Assumptions, "Details follow the spec"), with the service's own `id`, `documents`,
 * `createdAt` and the account's `id` and `created_at`. It differs from the update shape on
 * purpose; clients must tolerate both.
 */
export function toUserCreated(user: StoredUser): UserCreated {
  const { details, own } = answerParts(user);
  return answerOf(userDetailsModel, 'created', details, own) as UserCreated;
}
