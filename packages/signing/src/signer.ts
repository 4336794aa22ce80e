/**
 * The shape of a prepared signer, shared by the two implementations behind the conditional
 * `@institution-api/signing/signer` entry point (`signer-node.ts` where the runtime resolves the
 * `node` export condition, `signer-web.ts` everywhere else). Both compute the signature of the
 * "Authentication" section of the spec and are tested against the same published test vectors.
 *
 * @module
 */
import type {
  MessageSignatureHeaders,
  MessageSignatureOptions,
  MessageToSign,
} from './message-signature.js';

/**
 * Signs one message (a string is UTF-8 encoded; bytes are used as they are) with the secret
 * and options the signer was created with, giving the encoded MAC. Synchronous (a `string`)
 * on `node:crypto`, a `Promise` on Web Crypto, so callers `await` only when they must:
 * `const s = signer(text); const signature = typeof s === 'string' ? s : await s;`.
 */
export type Signer = (message: string | Uint8Array) => string | Promise<string>;

/**
 * Signs one request with RFC 9421 message signatures (the spec's security scheme
 * `MessageSignature`) with the key pair the signer was created with: a new `created` and a new
 * nonce on every call, so a retry is a new signature. Synchronous on `node:crypto`, a `Promise`
 * on Web Crypto.
 */
export type MessageSigner = (
  message: MessageToSign,
) => MessageSignatureHeaders | Promise<MessageSignatureHeaders>;

/** What a {@link MessageSigner} is made with: all but the per-request parameters. */
export type MessageSignerOptions = Omit<MessageSignatureOptions, 'created' | 'expires' | 'nonce'>;

/** Which implementation the `signer` entry point resolved to in this runtime. */
export type SignerRuntime = 'node:crypto' | 'web-crypto';
