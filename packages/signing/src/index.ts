/**
 * `@institution-api/signing`: the one implementation of the request signature of the User
 * Management Interface of the Institution Service, shared by the client and the reference
 * server so they can never disagree ("Authentication" section of the spec).
 *
 * This entry point uses only Web Crypto and `TextEncoder`, so it runs on Node >= 20.19, Deno,
 * Bun, browsers and edge workers. For synchronous signing on Node, import
 * `@institution-api/signing/node`.
 *
 * @module
 */

export { type DiagnosisBudget, defaultDiagnosisBudget } from './diagnosis-budget.js';
export { signMessage, verifyMessageSignature } from './message-signature-web.js';
export * from './runtime-independent.js';
export {
  type BodyFingerprint,
  bodyFingerprint,
  type DiagnosedComponent,
  type DiagnoseSignatureOptions,
  diagnoseSignature,
  type MisusedKey,
  type SignatureDiagnosis,
  type SignatureDiagnosisCause,
} from './signature-diagnosis.js';
export { sign, signBody, signQuery, verify } from './web-crypto.js';
