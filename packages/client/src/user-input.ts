/**
 * The way back from a read {@link User} to a request body, for "read, change one field,
 * update": update replaces every detail (spec: `updateUser`, "Update replaces"), so the body
 * must carry all of them, in the request's shape (section 2.1 of the interface document), not
 * the response's (sections 2.3 and 2.4).
 *
 * @module
 */
import type { UserInput } from '@institution-api/types';
import type { User, UserWithIncome } from './user.js';

/**
 * The {@link UserInput} that describes `user` as it is, so that
 * `updateUser(user.id, { ...toUserInput(user), firstName: 'Efua' })` changes one field and
 * keeps the others:
 *
 * - `dateOfBirth` goes back to a date, `YYYY-MM-DD`: the date part of the date-time the service
 *   returns (`1990-05-17T00:00:00.000Z` gives `1990-05-17`), as written, never shifted by a
 *   time zone;
 * - the account goes back to the request fields `accountType`, `accountNumber`, `accountName`
 *   and `network` (MOMO) or `bankName` (BANK); no account gives none of them;
 * - `image`, `ghanaCardImage`, `isGhanaCardVerified`, `kyc`, `otherName` and `gender` are
 *   carried over; `id`, `createdAt`, the account's `id`/`createdAt` and `documents` are not
 *   request fields and are left out.
 *
 * `monthlyIncome` is required by the request, but a create answer does not carry it, so a
 * `User` from `createUser` has `monthlyIncome: null` and does not compile here: say what the
 * income is, `toUserInput({ ...user, monthlyIncome: 3200.75 })`. After a `201` that is the
 * income you sent; after a `200` (an existing user) the stored income is not known to you, and
 * update will replace it with the one you give. A `User` from `updateUser` carries it.
 *
 * Throws a `TypeError` (a programming error, naming the field) for a user the request cannot
 * describe: `monthlyIncome` null despite the types, no `mobileNumber` or `ghanaCardNumber`
 * (the response schemas allow null; the service never returns it), a MOMO account without a
 * network, a BANK account without a bank name, or a `dateOfBirth` that is not a date.
 */
export function toUserInput(user: UserWithIncome): UserInput {
  const details = {
    email: user.email,
    firstName: user.firstName,
    lastName: user.lastName,
    otherName: user.otherName,
    gender: user.gender,
    dateOfBirth: dateOnly(user.dateOfBirth),
    mobileNumber: required(user.mobileNumber, 'mobileNumber'),
    ghanaCardNumber: required(user.ghanaCardNumber, 'ghanaCardNumber'),
    monthlyIncome: income(user),
    isGhanaCardVerified: user.isGhanaCardVerified,
    image: user.image,
    ghanaCardImage: user.ghanaCardImage,
    kyc: { ...user.kyc },
  };
  const { account } = user;
  if (account === null) return details;
  const { accountNumber, accountName } = account;
  if (account.accountType === 'MOMO') {
    const network = required(account.network, 'account.network');
    return { ...details, accountType: 'MOMO', accountNumber, accountName, network };
  }
  const bankName = required(account.bankName, 'account.bankName');
  return { ...details, accountType: 'BANK', accountNumber, accountName, bankName };
}

function income(user: User): number {
  if (typeof user.monthlyIncome === 'number') return user.monthlyIncome;
  throw new TypeError(
    'toUserInput: monthlyIncome is null (a create answer does not carry it); ' +
      'pass it in: toUserInput({ ...user, monthlyIncome })',
  );
}

function required<T>(value: T | null, field: string): T {
  if (value === null)
    throw new TypeError(`toUserInput: the user has no ${field}, which the request requires`);
  return value;
}

/** The calendar date as written at the start of a date-time (`2000-02-29T00:00:00Z`). */
function dateOnly(dateTime: string | null): string | null {
  if (dateTime === null) return null;
  const date = /^(\d{4}-\d{2}-\d{2})(?:$|T)/.exec(dateTime)?.[1];
  if (date === undefined)
    throw new TypeError('toUserInput: dateOfBirth is not a date or a date-time');
  return date;
}
