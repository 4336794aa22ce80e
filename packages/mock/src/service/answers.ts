/**
 * The mock's answers: users in the two response shapes of the spec, and problems, as `Response`s
 * with the headers the reference server sends.
 *
 * @module
 */
import type {
  FieldError,
  SignatureDiagnosis,
  UserCreated,
  UserUpdated,
} from '@institution-api/types';
import { type ProblemKind, problemDocument, problemMediaType } from '@institution-api/types/http';
import type { ModelUser } from '@institution-api/types/model';
import { answerOf, type UserDetailsModel } from '@institution-api/types/user-details';

/** A JSON answer, `application/json; charset=utf-8` as Express sends it. */
export function jsonAnswer(status: number, body: unknown, headers: Record<string, string> = {}) {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  });
}

/**
 * A problem (RFC 9457) of `kind`, as the reference server words and sends it; a sandbox's `401`
 * with its `diagnosis`.
 */
export function problemAnswer(
  kind: ProblemKind,
  detail: string,
  url: string,
  errors?: FieldError[],
  headers: Record<string, string> = {},
  diagnosis?: SignatureDiagnosis,
): Response {
  return new Response(JSON.stringify(problemDocument(kind, detail, url, errors, diagnosis)), {
    status: kind.status,
    headers: { 'content-type': `${problemMediaType}; charset=utf-8`, ...headers },
  });
}

/** The account fields of a stored user's details (spec: `UserInput`'s account variants). */
type AccountDetails = {
  accountType: string;
  accountNumber: string;
  network?: string | null;
  bankName?: string | null;
  accountName: string;
};

/**
 * A user in the create shape (spec: `UserCreated`): each key the schema lists, in its order, as
 * the details model reads the schema (the profile image as `userImage`, no `monthlyIncome`; spec:
 * Assumptions, "Details follow the spec"), with the service's own `id`, `documents`, account with
 * snake_case keys and `createdAt`: what the reference server answers, from the same model.
 */
export function toUserCreated(user: ModelUser, model: UserDetailsModel): UserCreated {
  const account = user.details as Partial<AccountDetails>;
  return answerOf(model, 'created', user.details, {
    id: user.id,
    documents: [...user.documents],
    account: user.account && {
      id: user.account.id,
      account_type: account.accountType,
      account_number: account.accountNumber,
      network: account.network ?? null,
      bank_name: account.bankName ?? null,
      account_name: account.accountName,
      created_at: user.account.createdAt,
    },
    createdAt: user.createdAt,
  }) as UserCreated;
}

/**
 * A user in the update shape (spec: `UserUpdated`): the profile image as `image`,
 * `monthlyIncome`, no `documents`, account with camelCase keys, its `bankName` left out when it
 * has none, as the reference server answers.
 */
export function toUserUpdated(user: ModelUser, model: UserDetailsModel): UserUpdated {
  const account = user.details as Partial<AccountDetails>;
  return answerOf(model, 'updated', user.details, {
    id: user.id,
    account: user.account && {
      id: user.account.id,
      accountType: account.accountType,
      accountNumber: account.accountNumber,
      network: account.network ?? null,
      ...(account.bankName == null ? {} : { bankName: account.bankName }),
      accountName: account.accountName,
      createdAt: user.account.createdAt,
    },
    createdAt: user.createdAt,
  }) as UserUpdated;
}
