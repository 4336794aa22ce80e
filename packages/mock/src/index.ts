/**
 * `@institution-api/mock`: test an integration of the User Management Interface without a
 * server. MSW handlers with the service's semantics, signature checks and request validation, and
 * typed overrides. The service itself is `@institution-api/mock/service`; the server for other
 * languages, `institution-api-mock` (`@institution-api/mock/server`).
 *
 * @module
 */
export {
  type DocumentedAnswer,
  type DocumentedBody,
  type DocumentedStatus,
  documentedAnswer,
  type OperationId,
} from './msw/documented-answer.js';
export {
  createMockHandlers,
  type MockHandlers,
  type MockHandlersOptions,
  type OverrideInfo,
  overrideHandler,
} from './msw/handlers.js';
export type { MockInstitution } from './service/institutions.js';
export type { MockService, MockServiceOptions, RoutedRequest } from './service/mock-service.js';
