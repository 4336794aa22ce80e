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
export {
  type ClientError,
  type HttpProblem,
  UsersClientError,
  type UsersClientErrorKind,
} from './errors.js';
export type { FetchLike } from './resilient-fetch.js';
export { DEFAULT_RETRY, type RetryOptions } from './retry-policy.js';
export {
  createSigningMiddleware,
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
  type CallOptions,
  type CreateUserData,
  createUsersClient,
  DEFAULT_TIMEOUT_MS,
  type UpdateUserData,
  type UserId,
  type UsersClient,
  type UsersClientOptions,
  type UsersClientResult,
} from './users-client.js';
