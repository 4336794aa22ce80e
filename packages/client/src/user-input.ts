/**
 * The way back from a read `User` to a request body, for "read, change one field,
 * update": update replaces every detail (spec: `updateUser`, "Update replaces"), so the body
 * must carry all of them, in the request's shape (spec: `UserInput`), not the answers'
 * (`UserCreated`, `UserUpdated`).
 *
 * @module
 */

import {
  type DetailField,
  dateOf,
  userDetailsModel,
  withDefaults,
} from '@institution-api/runtime/user-details';
import type { UserInput } from '@institution-api/types';
import type { UserAccount, UserWithIncome } from './user.js';

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
 * (`@institution-api/runtime/user-details`), so a field the spec adds is carried over with no
 * change here, and read-change-update never drops it:
 *
 * - every field of `UserInput` is taken from the user's key of the same name, in the schema's
 *   order; one the user lacks gets its absent value (`null`, `false`, a kyc of nulls), as the
 *   service would read it;
 * - a date (`dateOfBirth`) goes back to `YYYY-MM-DD`: the date part of the date-time the service
 *   returns (`1990-05-17T00:00:00.000Z` gives `1990-05-17`), as written, never shifted by a
 *   time zone;
 * - the account goes back to its request fields, those the variant of its type admits (spec:
 *   `UserInput`'s `oneOf`: `network` for MOMO, `bankName` for BANK, and any field the spec adds
 *   to the account), each under the name `User.account` gives it; no account gives none of them;
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
 * the service never returns it), an account without a field its variant requires (a MOMO account
 * without a network, a BANK account without a bank name), or a date that is not a date.
 */
export function toUserInput(user: UserWithIncome): UserInput {
  const details = requestFields(userDetailsModel.input, user as unknown as Record<string, unknown>);
  return { ...details, ...accountFields(user.account) } as UserInput;
}

/** The request fields of `account`: those the variant of its type admits (spec: `UserInput`). */
function accountFields(account: UserAccount | null): Record<string, unknown> {
  if (account === null) return {};
  const given = account as unknown as Record<string, unknown>;
  const { discriminator, variants } = userDetailsModel.account;
  const variant = variants.find((candidate) => candidate.type === given[discriminator]);
  if (!variant) {
    throw new TypeError(`toUserInput: account.${discriminator} is none the request knows`);
  }
  const fields: Record<string, unknown> = {};
  for (const field of userDetailsModel.input) {
    if (!field.account || !variant.admitted.includes(field.name)) continue;
    const value = given[field.name] ?? null;
    if (value === null && variant.required.includes(field.name)) {
      throw new TypeError(
        `toUserInput: the user has no account.${field.name}, which the request requires`,
      );
    }
    fields[field.name] = value;
  }
  return fields;
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
