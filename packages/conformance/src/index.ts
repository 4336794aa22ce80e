/**
 * `@institution-api/conformance`: checks any implementation of the User Management Interface
 * against its OpenAPI 3.1 contract (`run`), and watches real traffic against it (`proxy`).
 *
 * @module
 */
export { CHECKS, type CheckId, type Outcome } from './checks/catalog.js';
export { type CliIo, main } from './cli/main.js';
export type { Credential, Credentials } from './http/authorization.js';
export {
  type ProxyOptions,
  type RunningProxy,
  startProxy,
  type Violation,
} from './proxy/proxy-server.js';
export type { Progress } from './run/context.js';
export type { CheckResult, Failure } from './run/results.js';
export {
  RUN_DEFAULTS,
  type RunOptions,
  type RunReport,
  runConformance,
  ServiceUnreachable,
} from './run/run-conformance.js';
export { type Contract, type Operation, readContract } from './spec/contract.js';
export { loadSpec, SpecError } from './spec/load-spec.js';
