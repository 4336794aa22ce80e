/**
 * The way back from a read `User` to a request body, for "read, change one field,
 * update": update replaces every detail (spec: `updateUser`, "Update replaces"), so the body
 * must carry all of them, in the request's shape (section 2.1 of the interface document), not
 * the response's (sections 2.3 and 2.4).
 *
 * @module
 */
import type { UserInput } from '@institution-api/types';
import {
  type DetailField,
  dateOf,
  userDetailsModel,
  withDefaults,
} from '@institution-api/types/user-details';
import type { UserWithIncome } from './user.js';

/** Which answer leaves each field out (`monthlyIncome`: create), for the message that names it. */
const notCarriedBy = new Map(
  userDetailsModel.input.map((field) => [
    field.name,
    (['created', 'updated'] as const).find(
      (shape) => !userDetailsModel.answers[shape].some((key) => key.field === field.name),
    ),
  ]),
);

/**
 * The {@link UserInput} that describes `user` as it is, so that
 * `updateUser(user.id, { ...toUserInput(user), firstName: 'Efua' })` changes one field and
 * keeps the others. Its fields are `UserInput`'s, read from the spec
 * (`@institution-api/types/user-details`), so a field the spec adds is carried over with no
 * change here, and read-change-update never drops it:
 *
 * - every field of `UserInput` is taken from the user's key of the same name, in the schema's
 *   order; one the user lacks gets its absent value (`null`, `false`, a kyc of nulls), as the
 *   service would read it;
 * - a date (`dateOfBirth`) goes back to `YYYY-MM-DD`: the date part of the date-time the service
 *   returns (`1990-05-17T00:00:00.000Z` gives `1990-05-17`), as written, never shifted by a
 *   time zone;
 * - the account goes back to the request fields `accountType`, `accountNumber`, `accountName`
 *   and `network` (MOMO) or `bankName` (BANK); no account gives none of them;
 * - `id`, `createdAt`, the account's `id`/`createdAt` and `documents` are not request fields and
 *   are left out.
 *
 * `monthlyIncome` is required by the request, but a create answer does not carry it, so a
 * `User` from `createUser` has `monthlyIncome: null` and does not compile here: say what the
 * income is, `toUserInput({ ...user, monthlyIncome: 3200.75 })`. After a `201` that is the
 * income you sent; after a `200` (an existing user) the stored income is not known to you, and
 * update will replace it with the one you give. A `User` from `updateUser` carries it.
 *
 * Throws a `TypeError` (a programming error, naming the field) for a user the request cannot
 * describe: a field the request requires that is null or missing despite the types
 * (`monthlyIncome`, or `mobileNumber`/`ghanaCardNumber`, which the response schemas allow null;
 * the service never returns it), a MOMO account without a network, a BANK account without a bank
 * name, or a date that is not a date.
 */
export function toUserInput(user: UserWithIncome): UserInput {
  const details = requestFields(userDetailsModel.input, user as unknown as Record<string, unknown>);
  const { account } = user;
  if (account === null) return details as UserInput;
  const { accountNumber, accountName } = account;
  if (account.accountType === 'MOMO') {
    const network = required(account.network, 'account.network');
    return { ...details, accountType: 'MOMO', accountNumber, accountName, network } as UserInput;
  }
  const bankName = required(account.bankName, 'account.bankName');
  return { ...details, accountType: 'BANK', accountNumber, accountName, bankName } as UserInput;
}

/** The request's fields of `value` (the account's aside), dates as dates, into nested objects. */
function requestFields(
  fields: readonly DetailField[],
  value: Record<string, unknown>,
  path = '',
): Record<string, unknown> {
  const request: Record<string, unknown> = {};
  for (const field of fields) {
    if (field.account) continue;
    const name = `${path}${field.name}`;
    const given = value[field.name];
    if (given === undefined || given === null) {
      if (field.required) throw missing(name);
      if (given === null) request[field.name] = null;
      else if (field.absent) Object.assign(request, withDefaults([field], {}));
    } else if (field.date && typeof given === 'string') {
      const date = dateOf(given);
      if (date === undefined) {
        throw new TypeError(`toUserInput: ${name} is not a date or a date-time`);
      }
      request[field.name] = date;
    } else if (field.fields && isPlainObject(given)) {
      request[field.name] = requestFields(field.fields, given, `${name}.`);
    } else {
      request[field.name] = given;
    }
  }
  return request;
}

function missing(field: string): TypeError {
  const shape = notCarriedBy.get(field);
  return new TypeError(
    shape
      ? `toUserInput: ${field} is null (a ${shape === 'created' ? 'create' : 'update'} answer does not carry it); ` +
          `pass it in: toUserInput({ ...user, ${field} })`
      : `toUserInput: the user has no ${field}, which the request requires`,
  );
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function required<T>(value: T | null, field: string): T {
  if (value === null)
    throw new TypeError(`toUserInput: the user has no ${field}, which the request requires`);
  return value;
}
