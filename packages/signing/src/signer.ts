/**
 * The shape of a prepared signer, shared by the two implementations behind the conditional
 * `@institution-api/signing/signer` entry point (`signer-node.ts` where the runtime resolves the
 * `node` export condition, `signer-web.ts` everywhere else). Both compute the signature of the
 * "Authentication" section of the spec and are tested against the same published test vectors.
 *
 * @module
 */

/**
 * Signs one message (a string is UTF-8 encoded; bytes are used as they are) with the secret
 * and options the signer was created with, giving the encoded MAC. Synchronous (a `string`)
 * on `node:crypto`, a `Promise` on Web Crypto, so callers `await` only when they must:
 * `const s = signer(text); const signature = typeof s === 'string' ? s : await s;`.
 */
export type Signer = (message: string | Uint8Array) => string | Promise<string>;

/** Which implementation the `signer` entry point resolved to in this runtime. */
export type SignerRuntime = 'node:crypto' | 'web-crypto';
