/**
 * `@institution-api/runtime/http`: what the service answers beside its semantics, shared by the
 * reference server and the mock so both answer alike: the problems and their words, the checks of
 * a request body before validation, the sandbox's forced answers (`Prefer: code=NNN`), and the
 * contract's header fields (what CORS allows and exposes).
 * Runs anywhere (browsers, Node, workers).
 *
 * @module
 */
export { type ContractHeaderFields, contractHeaderFields } from './header-fields.js';
export {
  maxListedErrors,
  type ProblemKind,
  type ProblemWording,
  problemDocument,
  problemKinds,
  problemMediaType,
  semanticProblems,
  unauthorizedDetail,
} from './problems.js';
export {
  isUtf8Json,
  maxBodyBytes,
  mayHoldRefusedContent,
  parameterError,
  refusedContent,
} from './request-body.js';
export {
  type ForcedAnswer,
  forcedAnswer,
  parsePrefer,
  type SandboxPreference,
} from './sandbox.js';
