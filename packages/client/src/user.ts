/**
 * The tolerant reader of the two response shapes. The interface document's create and update
 * answers differ (section 2.3/2.4: snake_case vs camelCase account keys, `userImage` vs `image`,
 * `documents` only in one, `monthlyIncome` only in the other) and "clients must tolerate both"
 * (decision "both response shapes"). Code above this module sees one canonical {@link User}.
 *
 * @module
 */
import type {
  AccountCreated,
  AccountUpdated,
  Kyc,
  UserCreated,
  UserUpdated,
} from '@institution-api/types';

/**
 * The payout account in one camelCase shape (the update response's key names), with `bankName`
 * always present: `null` for a MOMO account, whose update response leaves the key out.
 */
export interface UserAccount extends Omit<AccountUpdated, 'bankName'> {
  /** The bank's name for a `BANK` account; `null` for `MOMO`. */
  bankName: string | null;
}

/** The KYC details with all five keys present, `null` when unknown (spec: `Kyc`). */
export type UserKyc = { [K in keyof Kyc]-?: Exclude<Kyc[K], undefined> };

/**
 * A user as either operation returns it, in one camelCase shape: the profile image is `image`
 * (create calls it `userImage`), `documents` is `[]` when the answer has none (update), and
 * `monthlyIncome` is `null` when the answer does not carry it (create; on a `200` create the
 * stored income may differ from the one sent, so the request's value is not substituted).
 */
export interface User
  extends Omit<UserUpdated, 'kyc' | 'account' | 'monthlyIncome'>,
    Pick<UserCreated, 'documents'> {
  /** Know-your-customer details, every key present. */
  kyc: UserKyc;
  /** Monthly income; `null` when the answer does not carry it (the create shape). */
  monthlyIncome: number | null;
  /** The payout account, or `null` when the user has none. */
  account: UserAccount | null;
}

/**
 * A {@link User} whose `monthlyIncome` is known: what an update answer gives (the update shape
 * carries the income), and what `toUserInput` needs, because the request requires it.
 */
export type UserWithIncome = User & { monthlyIncome: number };

/**
 * One canonical {@link User} from a create (`UserCreated`) or an update (`UserUpdated`) answer.
 * Each difference is detected per field rather than by guessing the shape once, so an answer
 * that mixes the two (say, a future create that adopts camelCase account keys) still reads
 * correctly. Keys come out in the same order whatever the input, so serialized users compare
 * equal too. From an update answer the result is typed {@link UserWithIncome}.
 */
export function normalizeUser(user: UserUpdated): UserWithIncome;
export function normalizeUser(user: UserCreated | UserUpdated): User;
export function normalizeUser(user: UserCreated | UserUpdated): User {
  return {
    id: user.id,
    firstName: user.firstName,
    lastName: user.lastName,
    otherName: user.otherName ?? null,
    email: user.email,
    gender: user.gender ?? null,
    dateOfBirth: user.dateOfBirth ?? null,
    kyc: normalizeKyc(user.kyc),
    mobileNumber: user.mobileNumber ?? null,
    ghanaCardNumber: user.ghanaCardNumber ?? null,
    ghanaCardImage: user.ghanaCardImage ?? null,
    image: ('userImage' in user ? user.userImage : user.image) ?? null,
    isGhanaCardVerified: user.isGhanaCardVerified,
    documents: 'documents' in user ? user.documents : [],
    monthlyIncome: 'monthlyIncome' in user ? user.monthlyIncome : null,
    account: user.account ? normalizeAccount(user.account) : null,
    createdAt: user.createdAt ?? null,
  };
}

function normalizeKyc(kyc: Kyc | undefined): UserKyc {
  return {
    occupation: kyc?.occupation ?? null,
    address: kyc?.address ?? null,
    validFrom: kyc?.validFrom ?? null,
    validTo: kyc?.validTo ?? null,
    refNumber: kyc?.refNumber ?? null,
  };
}

function normalizeAccount(account: AccountCreated | AccountUpdated): UserAccount {
  if ('account_type' in account) {
    return {
      id: account.id,
      accountType: account.account_type,
      accountNumber: account.account_number,
      network: account.network ?? null,
      bankName: account.bank_name ?? null,
      accountName: account.account_name,
      createdAt: account.created_at,
    };
  }
  return {
    id: account.id,
    accountType: account.accountType,
    accountNumber: account.accountNumber,
    network: account.network ?? null,
    bankName: account.bankName ?? null,
    accountName: account.accountName,
    createdAt: account.createdAt,
  };
}
