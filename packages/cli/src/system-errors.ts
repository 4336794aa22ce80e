/**
 * The system error codes a request to the service can fail with (Node's `fetch` puts them on its
 * error's `cause`, `node:http` on the error itself), in words, for the one-line messages of the
 * `institution-api` commands and the `502` problems of `sign-proxy`.
 *
 * @module
 */

/** What each code means; the code follows the words in parentheses. */
const systemErrors: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  CERT_HAS_EXPIRED: 'its TLS certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its TLS certificate is self-signed',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its TLS certificate cannot be verified',
};

/** `connection refused (ECONNREFUSED)`; `request failed (CODE)` for a code not listed. */
export function describeSystemError(code: string): string {
  return `${systemErrors[code] ?? 'request failed'} (${code})`;
}
