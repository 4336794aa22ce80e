import type { UserCreated } from '@institution-api/types';
import type { StoredUser } from '../storage/types.js';
import { dateOfBirthAsDateTime, kycOf } from './user-fields.js';

/**
 * A stored user in the create response shape (spec: `UserCreated`; interface document 2.3 and
 * 2.4): snake_case account keys, the profile image as `userImage`, `documents`, and no
 * `monthlyIncome`. It differs from the update shape on purpose; clients must tolerate both.
 */
export function toUserCreated(user: StoredUser): UserCreated {
  return {
    id: user.id,
    firstName: user.firstName,
    lastName: user.lastName,
    otherName: user.otherName,
    email: user.email,
    gender: user.gender,
    dateOfBirth: dateOfBirthAsDateTime(user.dateOfBirth),
    kyc: kycOf(user),
    mobileNumber: user.mobileNumber,
    ghanaCardNumber: user.ghanaCardNumber,
    ghanaCardImage: user.ghanaCardImage,
    userImage: user.image,
    isGhanaCardVerified: user.isGhanaCardVerified,
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
  };
}
