/**
 * `@institution-api/types/model`: the one model of the service's semantics (spec: "Assumptions"),
 * shared by the mock and the conformance suite. Runs anywhere (browsers, Node, workers).
 *
 * @module
 */
export { normalizedCard, normalizedMobile, storedDetails } from './normalize.js';
export {
  type AccountIdentity,
  type CreateOutcome,
  type ModelUser,
  outcomeStatus,
  type UpdateOutcome,
  UserDirectory,
  type UserDirectoryOptions,
} from './user-directory.js';
