/**
 * The mock's answers: users in the two response shapes of the spec, and problems, as `Response`s
 * with the headers the reference server sends.
 *
 * @module
 */
import type { FieldError, UserCreated, UserUpdated } from '@institution-api/types';
import { type ProblemKind, problemDocument, problemMediaType } from '@institution-api/types/http';
import type { ModelUser } from '@institution-api/types/model';

/** A JSON answer, `application/json; charset=utf-8` as Express sends it. */
export function jsonAnswer(status: number, body: unknown, headers: Record<string, string> = {}) {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  });
}

/** A problem (RFC 9457) of `kind`, as the reference server words and sends it. */
export function problemAnswer(
  kind: ProblemKind,
  detail: string,
  url: string,
  errors?: FieldError[],
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify(problemDocument(kind, detail, url, errors)), {
    status: kind.status,
    headers: { 'content-type': `${problemMediaType}; charset=utf-8`, ...headers },
  });
}

type Details = Record<string, unknown> & {
  kyc: Record<string, string | null>;
  dateOfBirth: string | null;
};

/** `dateOfBirth` as answers carry it: a date-time at midnight UTC (spec: "Assumptions", "dateOfBirth"). */
const dateTime = (date: string | null) => (date === null ? null : `${date}T00:00:00.000Z`);

/** The kyc object of an answer, all five keys present (spec: `Kyc`). */
function kycOf(details: Details) {
  const { occupation, address, validFrom, validTo, refNumber } = details.kyc;
  return { occupation, address, validFrom, validTo, refNumber };
}

/** The fields both shapes share, in the reference server's order. */
function common(user: ModelUser, details: Details) {
  return {
    id: user.id,
    firstName: details.firstName,
    lastName: details.lastName,
    otherName: details.otherName,
    email: details.email,
    gender: details.gender,
    dateOfBirth: dateTime(details.dateOfBirth),
    kyc: kycOf(details),
    mobileNumber: details.mobileNumber,
    ghanaCardNumber: details.ghanaCardNumber,
    ghanaCardImage: details.ghanaCardImage,
  };
}

/**
 * A user in the create shape (spec: `UserCreated`): snake_case account keys, the profile image as
 * `userImage`, `documents`, and no `monthlyIncome`.
 */
export function toUserCreated(user: ModelUser): UserCreated {
  const details = user.details as unknown as Details;
  return {
    ...common(user, details),
    userImage: details.image,
    isGhanaCardVerified: details.isGhanaCardVerified,
    documents: [...user.documents],
    account: user.account && {
      id: user.account.id,
      account_type: details.accountType,
      account_number: details.accountNumber,
      network: details.network ?? null,
      bank_name: details.bankName ?? null,
      account_name: details.accountName,
      created_at: user.account.createdAt,
    },
    createdAt: user.createdAt,
  } as UserCreated;
}

/**
 * A user in the update shape (spec: `UserUpdated`): camelCase account keys, the profile image as
 * `image`, `monthlyIncome`, no `documents`; the account's `bankName` left out when it has none.
 */
export function toUserUpdated(user: ModelUser): UserUpdated {
  const details = user.details as unknown as Details;
  return {
    ...common(user, details),
    image: details.image,
    isGhanaCardVerified: details.isGhanaCardVerified,
    monthlyIncome: details.monthlyIncome,
    account: user.account && {
      id: user.account.id,
      accountType: details.accountType,
      accountNumber: details.accountNumber,
      network: details.network ?? null,
      ...(details.bankName == null ? {} : { bankName: details.bankName }),
      accountName: details.accountName,
      createdAt: user.account.createdAt,
    },
    createdAt: user.createdAt,
  } as UserUpdated;
}
