/**
 * The mock's answers: users in the two response shapes of the spec, and problems, as `Response`s
 * with the headers the reference server sends.
 *
 * @module
 */

import { type ProblemKind, problemDocument, problemMediaType } from '@institution-api/runtime/http';
import type { ModelUser } from '@institution-api/runtime/model';
import { answerOf, type UserDetailsModel } from '@institution-api/runtime/user-details';
import type {
  FieldError,
  SignatureDiagnosis,
  UserCreated,
  UserUpdated,
} from '@institution-api/types';

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

/** What `answerOf` takes of a model user beside its details: the service's own values. */
function ownValues(user: ModelUser): Record<string, unknown> {
  return {
    id: user.id,
    documents: [...user.documents],
    createdAt: user.createdAt,
    account: user.account && { ...user.account },
  };
}

/**
 * A user in the create shape (spec: `UserCreated`, its account `AccountCreated`): each key the
 * schemas list, in their order, as the details model reads them (the profile image as
 * `userImage`, no `monthlyIncome`, the account's keys in snake_case; spec: Assumptions, "Details
 * follow the spec"), with the service's own `id`, `documents`, `createdAt` and the account's:
 * what the reference server answers, from the same model.
 */
export function toUserCreated(user: ModelUser, model: UserDetailsModel): UserCreated {
  return answerOf(model, 'created', user.details, ownValues(user)) as UserCreated;
}

/**
 * A user in the update shape (spec: `UserUpdated`, its account `AccountUpdated`): the profile
 * image as `image`, `monthlyIncome`, no `documents`, the account's keys in camelCase, a key the
 * schema does not require left out when it has no value (a MOMO account's `bankName`), as the
 * reference server answers.
 */
export function toUserUpdated(user: ModelUser, model: UserDetailsModel): UserUpdated {
  return answerOf(model, 'updated', user.details, ownValues(user)) as UserUpdated;
}
