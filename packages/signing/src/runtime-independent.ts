/**
 * What both entry points export alike, whatever the runtime's cryptography: the signature's
 * options, the Authorization header's format, and the runtime-free part of RFC 9421 message
 * signatures (the spec's security schemes `InstitutionSignature` and `MessageSignature`). `.`
 * (Web Crypto) and `./node` (node:crypto) each add their own signing and verifying functions.
 *
 * @module
 */
export {
  DEFAULT_SIGNATURE_OPTIONS,
  type SignatureAlgorithm,
  type SignatureEncoding,
  type SignatureOptions,
} from './algorithms.js';
export { presentedPublicKey } from './authorization-form.js';
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
  describeMessageSignature,
  MAX_NONCE_LENGTH,
  MESSAGE_SIGNATURE_ALGORITHM,
  type MessageSignatureDecision,
  type MessageSignatureDescription,
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
export {
  type ReceivedTarget,
  type RoutedTarget,
  routedTarget,
  type TargetUri,
} from './request-target.js';
export { redactSecret } from './secret-redaction.js';
export {
  WEB_CRYPTO_UNAVAILABLE,
  WebCryptoUnavailableError,
} from './subtle-crypto.js';
