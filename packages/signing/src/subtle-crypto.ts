/**
 * Web Crypto's `crypto.subtle`, which every HMAC and digest of the Web Crypto side needs, and the
 * one error for a runtime without it. Browsers give it only to secure contexts: a page served
 * over plain HTTP from another address than localhost has `crypto.getRandomValues` but no
 * `crypto.subtle`. No `node:` imports here; a test enforces it.
 *
 * @module
 */

/** The `code` of {@link WebCryptoUnavailableError}, to recognize it across copies of this package. */
export const WEB_CRYPTO_UNAVAILABLE = 'ERR_WEB_CRYPTO_UNAVAILABLE';

/**
 * Thrown (as a rejection of the signing Promise) where `globalThis.crypto.subtle` is undefined.
 * Recognize it by `code` ({@link WEB_CRYPTO_UNAVAILABLE}) rather than `instanceof`, which a
 * second copy of the package in a bundle would defeat.
 */
export class WebCryptoUnavailableError extends Error {
  override readonly name = 'WebCryptoUnavailableError';
  readonly code = WEB_CRYPTO_UNAVAILABLE;

  constructor() {
    super(
      'Web Crypto (globalThis.crypto.subtle) is not available here. Browsers give it only to ' +
        'pages in a secure context: served over HTTPS or from localhost. On Node, use ' +
        '@institution-api/signing/node.',
    );
  }
}

/** `globalThis.crypto.subtle`; throws {@link WebCryptoUnavailableError} where there is none. */
export function subtle(): SubtleCrypto {
  const api = globalThis.crypto?.subtle;
  if (api === undefined) throw new WebCryptoUnavailableError();
  return api;
}
