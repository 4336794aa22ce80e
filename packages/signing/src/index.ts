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
export {
  DEFAULT_SIGNATURE_OPTIONS,
  type SignatureAlgorithm,
  type SignatureEncoding,
  type SignatureOptions,
} from './algorithms.js';
export {
  type Credentials,
  formatAuthorization,
  type ParsedAuthorization,
  parseAuthorization,
} from './authorization-header.js';
export {
  type ContentDigestAlgorithm,
  DEFAULT_MAX_SKEW_SECONDS,
  DEFAULT_SIGNATURE_LABEL,
  decideMessageSignature,
  MAX_NONCE_LENGTH,
  MESSAGE_SIGNATURE_ALGORITHM,
  type MessageSignatureDecision,
  type MessageSignatureFailure,
  type MessageSignatureHeaders,
  type MessageSignatureOptions,
  type MessageSignatureRefusal,
  type MessageSignatureVerdict,
  type MessageToSign,
  type ReceivedMessage,
  signatureBaseFor,
  type VerifyMessageSignatureOptions,
} from './message-signature.js';
export { signMessage, verifyMessageSignature } from './message-signature-web.js';
export { sign, signBody, signQuery, verify } from './web-crypto.js';
