/**
 * `@institution-api/mock/service`: the mock service without MSW, a function from a Fetch
 * `Request` to a `Response` (for a custom server, a Service Worker of your own, or tests).
 *
 * @module
 */
export {
  type Authentication,
  type Authenticator,
  type AuthenticatorOptions,
  createAuthenticator,
  defaultMessageSignatureMaxAgeSeconds,
  type SignedRequest,
} from './authenticate.js';
export { type MockInstitution, parseInstitutions } from './institutions.js';
export {
  createMockService,
  type MockService,
  type MockServiceOptions,
  type RoutedRequest,
} from './mock-service.js';
