/**
 * `@institution-api/client`: a typed, signed client for the User Management Interface of the
 * Institution Service, on openapi-fetch, that reads both response shapes into one `User`.
 *
 * @module
 */
export type {
  AccountCreated,
  AccountType,
  AccountUpdated,
  components,
  FieldError,
  Kyc,
  MobileNetwork,
  Problem,
  paths,
  UserCreated,
  UserInput,
  UserUpdated,
} from '@institution-api/types';
export type { RetryNotice } from './attempts.js';
export {
  type ClientError,
  type HttpProblem,
  UsersClientError,
  type UsersClientErrorKind,
} from './errors.js';
export type { FetchLike } from './resilient-fetch.js';
export { DEFAULT_RETRY, parseRetryAfter, type RetryOptions } from './retry-policy.js';
export {
  type Authorize,
  createRequestSigning,
  createSigningMiddleware,
  type RequestSigning,
  type SigningMiddlewareOptions,
} from './signing-middleware.js';
export {
  normalizeUser,
  type User,
  type UserAccount,
  type UserKyc,
  type UserWithIncome,
} from './user.js';
export { toUserInput } from './user-input.js';
export {
  type Answer,
  type CallOptions,
  type CreateUserData,
  createUsersClient,
  DEFAULT_TIMEOUT_MS,
  type Exchange,
  fetchTransport,
  type Transport,
  type UpdateUserData,
  type UserId,
  type UsersClient,
  type UsersClientOptions,
  type UsersClientResult,
  usersUrl,
} from './users-client.js';
