/**
 * `@institution-api/runtime/model`: the one model of the service's semantics (spec: "Assumptions"),
 * shared by the mock and the conformance suite; its rules are those of `@institution-api/runtime/rules`. Runs anywhere (browsers, Node, workers).
 *
 * @module
 */
export { normalizedCard, normalizedMobile, storedDetails } from '../rules/index.js';
export {
  type AccountIdentity,
  type CreateOutcome,
  type ModelUser,
  outcomeStatus,
  type UpdateOutcome,
  UserDirectory,
  type UserDirectoryOptions,
} from './user-directory.js';
