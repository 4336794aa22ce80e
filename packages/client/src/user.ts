/**
 * The tolerant reader of the two response shapes. The create and update answers differ (spec:
 * `UserCreated` and `UserUpdated`: snake_case vs camelCase account keys, `userImage` vs `image`,
 * `documents` only in one, `monthlyIncome` only in the other) and clients must tolerate both
 * (spec: Assumptions, "Both response shapes"). Code above this module sees one canonical
 * {@link User}.
 *
 * @module
 */

import {
  type CanonicalKey,
  canonicalKeys,
  userDetailsModel,
  withDefaults,
} from '@institution-api/runtime/user-details';
import type { AccountUpdated, Kyc, UserCreated, UserUpdated } from '@institution-api/types';

/**
 * The payout account in one camelCase shape (the update answer's key names, spec:
 * `AccountUpdated`), every key present: one an answer leaves out is its field's absent value
 * (`bankName`: `null` for a MOMO account, whose update answer leaves the key out).
 */
export type UserAccount = Present<AccountUpdated>;

/** The KYC details with all five keys present, `null` when unknown (spec: `Kyc`). */
export type UserKyc = { [K in keyof Kyc]-?: Exclude<Kyc[K], undefined> };

/** Every key present: a key an answer may leave out reads as its absent value. */
type Present<T> = { [K in keyof T]-?: Exclude<T[K], undefined> };

/**
 * A user as either operation returns it, in one camelCase shape: the update answer's keys (the
 * profile image is `image`, which create calls `userImage`), with `documents` (`[]` when the
 * answer has none: update) and `monthlyIncome` (`null` when the answer does not carry it: create;
 * on a `200` create the stored income may differ from the one sent, so the request's value is not
 * substituted). A field the spec adds to both answers is a key of `User` too.
 */
export interface User
  extends Present<Omit<UserUpdated, 'kyc' | 'account' | 'monthlyIncome'>>,
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

/** The keys of a {@link User}, with their spellings in either answer, read from the spec. */
const userKeys = canonicalKeys(userDetailsModel);

/**
 * One canonical {@link User} from a create (`UserCreated`) or an update (`UserUpdated`) answer.
 * Its keys are those the spec's two answer schemas list (`@institution-api/runtime/user-details`),
 * so a field the spec adds is read with no change here. Each difference is detected per key rather
 * than by guessing the shape once, so an answer that mixes the two (say, a future create that
 * adopts camelCase account keys) still reads correctly. A key the answer leaves out reads as the
 * request field's absent value (spec: Assumptions, "Absent fields": `null`, `false`, a kyc of
 * nulls), `[]` for a list, `null` otherwise. Keys come out in the same order whatever the input,
 * so serialized users compare equal too. From an update answer the result is typed
 * {@link UserWithIncome}.
 */
export function normalizeUser(user: UserUpdated): UserWithIncome;
export function normalizeUser(user: UserCreated | UserUpdated): User;
export function normalizeUser(user: UserCreated | UserUpdated): User {
  return readKeys(userKeys, user as unknown as Record<string, unknown>) as unknown as User;
}

/**
 * The canonical keys of one object of an answer, the user or its account (`keys`): each read under
 * any of its spellings; the account object (null: none) read alike.
 */
function readKeys(
  keys: readonly CanonicalKey[],
  answer: Record<string, unknown>,
): Record<string, unknown> {
  const read: Record<string, unknown> = {};
  for (const { name, spellings, field, list, keys: nested } of keys) {
    let value: unknown;
    for (const spelling of spellings) {
      value = answer[spelling];
      if (value !== undefined) break;
    }
    if (nested) {
      value = isPlainObject(value) ? readKeys(nested, value) : null;
    } else if (value === undefined) {
      value = list ? [] : field?.absent ? withDefaults([field], {})[name] : null;
    } else if (field?.fields && isPlainObject(value)) {
      value = withDefaults(field.fields, value);
    }
    read[name] = value;
  }
  return read;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
