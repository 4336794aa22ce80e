import type { AccountUpdated, UserUpdated } from '@institution-api/types';
import type { StoredUser } from '../storage/types.js';
import { dateOfBirthAsDateTime, kycOf } from './user-fields.js';

/**
 * A stored user in the update response shape (spec: `UserUpdated`; the interface document's update
 * example): camelCase account keys, the profile image as `image`, `monthlyIncome`, and no
 * `documents`. As in that example, the account's `bankName` key is left out when it has no value.
 */
export function toUserUpdated(user: StoredUser): UserUpdated {
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
    image: user.image,
    isGhanaCardVerified: user.isGhanaCardVerified,
    monthlyIncome: user.monthlyIncome,
    account: user.account && accountUpdated(user.account),
    createdAt: user.createdAt.toISOString(),
  };
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
