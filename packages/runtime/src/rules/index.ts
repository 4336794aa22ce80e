/**
 * `@institution-api/runtime/rules`: the one rule book of the service (spec: "Assumptions"): how it
 * normalizes what it stores and whom a create reaches. Pure functions, runtime-agnostic; the
 * reference server, the mock and the conformance suite's model (`@institution-api/runtime/model`)
 * import them.
 *
 * @module
 */
export {
  accountOf,
  normalizedCard,
  normalizedMobile,
  storedDetails,
  withoutAccount,
} from './normalize.js';
export {
  accountIdentityFields,
  type Recognition,
  recognize,
  sameAccount,
} from './recognition.js';
