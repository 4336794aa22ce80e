import type { UserCreated } from '@institution-api/types';
import { answerOf, userDetailsModel } from '@institution-api/types/user-details';
import type { StoredUser } from '../storage/types.js';

/**
 * A stored user in the create response shape (spec: `UserCreated`; interface document 2.3 and
 * 2.4): each key the schema lists, in its order, as the details model reads the schema (the
 * profile image as `userImage`, `dateOfBirth` as a date-time, no `monthlyIncome`; spec:
 * Assumptions, "Details follow the spec"), with the service's own `id`, `documents`, account with
 * snake_case keys, and `createdAt`. It differs from the update shape on purpose; clients must
 * tolerate both.
 */
export function toUserCreated(user: StoredUser): UserCreated {
  return answerOf(userDetailsModel, 'created', user, {
    id: user.id,
    documents: [...user.documents],
    account: user.account && {
      id: user.account.id,
      account_type: user.account.type,
      account_number: user.account.number,
      network: user.account.network,
      bank_name: user.account.bankName,
      account_name: user.account.name,
      created_at: user.account.createdAt.toISOString(),
    },
    createdAt: user.createdAt.toISOString(),
  }) as UserCreated;
}
