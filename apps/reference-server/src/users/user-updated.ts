import type { AccountUpdated, UserUpdated } from '@institution-api/types';
import { answerOf, userDetailsModel } from '@institution-api/types/user-details';
import type { StoredUser } from '../storage/types.js';

/**
 * A stored user in the update response shape (spec: `UserUpdated`; the interface document's update
 * example): each key the schema lists, in its order, as the details model reads the schema (the
 * profile image as `image`, `dateOfBirth` as a date-time, `monthlyIncome`, no `documents`; spec:
 * Assumptions, "Details follow the spec"), with the service's own `id`, account with camelCase
 * keys, and `createdAt`. As in that example, the account's `bankName` key is left out when it has
 * no value.
 */
export function toUserUpdated(user: StoredUser): UserUpdated {
  return answerOf(userDetailsModel, 'updated', user, {
    id: user.id,
    account: user.account && accountUpdated(user.account),
    createdAt: user.createdAt.toISOString(),
  }) as UserUpdated;
}

function accountUpdated(account: NonNullable<StoredUser['account']>): AccountUpdated {
  return {
    id: account.id,
    accountType: account.type,
    accountNumber: account.number,
    network: account.network,
    ...(account.bankName === null ? {} : { bankName: account.bankName }),
    accountName: account.name,
    createdAt: account.createdAt.toISOString(),
  };
}
