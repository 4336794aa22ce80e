/**
 * `@institution-api/types/http`: what the service answers beside its semantics, shared by the
 * reference server and the mock so both answer alike: the problems and their words, the checks of
 * a request body before validation, and the sandbox's forced answers (`Prefer: code=NNN`).
 * Runs anywhere (browsers, Node, workers).
 *
 * @module
 */
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
