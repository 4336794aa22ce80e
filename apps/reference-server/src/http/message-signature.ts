import {
  DEFAULT_MAX_SKEW_SECONDS,
  decideMessageSignature,
  type ReceivedMessage,
  type MessageSignatureRefusal as SigningRefusal,
  type TargetUri,
  verifyMessageSignatureSync,
} from '@institution-api/signing/node';
import type { Request } from 'express';
import type { FoundCredential, NonceClaim } from '../storage/types.js';

/** How far a message signature's `created` may be from the server's clock, by default (seconds). */
export const defaultMessageSignatureMaxAgeSeconds = DEFAULT_MAX_SKEW_SECONDS;

/** Why a request's message signature was refused, as the log says it. */
export type MessageSignatureRefusal =
  | `message-signature-${SigningRefusal}`
  | 'message-signature-replayed';

/** What {@link checkMessageSignature} needs beside the request. */
export interface MessageSignatureCheck {
  /** The key pair the Authorization header named and verified. */
  publicKey: string;
  credential: Pick<FoundCredential, 'secretKey' | 'signaturePolicy'>;
  /** MESSAGE_SIGNATURE_MAX_AGE_SECONDS. */
  maxAgeSeconds: number;
  /** The server's clock, in milliseconds. */
  now: number;
}

/**
 * What {@link checkMessageSignature} found: a refusal (its reason, for the log), or the request
 * may go on, once its nonce (when it has a message signature) is claimed.
 */
export type MessageSignatureOutcome =
  | { refused: MessageSignatureRefusal; nonce?: undefined }
  | { refused?: undefined; nonce?: NonceClaim };

/**
 * The request as RFC 9421 sees it: the target URI it is routed by (`target`, from
 * request-target.ts: the path and query as routed, the authority never from a `Host` that is not
 * one), so that `@path`, `@query`, `@authority` and `@target-uri` are what the router acts on; its
 * fields by lowercase name, repeated ones joined with ", " (as Node joins them); and the exact body
 * bytes.
 */
export function receivedMessage(
  req: Request,
  target: TargetUri,
  body: Uint8Array,
): ReceivedMessage {
  return {
    method: req.method,
    url: target,
    header: (name) => {
      const value = req.headers[name];
      return Array.isArray(value) ? value.join(', ') : value;
    },
    body,
  };
}

/**
 * Checks the RFC 9421 message signature of a request whose Authorization header verified (spec:
 * `InstitutionSignature`, "Assumptions", message signatures), with `@institution-api/signing`:
 * - none at all: accepted on a key pair whose policy is `any`, refused on one that requires them;
 * - present but invalid (malformed, no signature for this key, another `alg`, a required
 *   component not covered, `created` or `nonce` missing, `created` outside ±maxAge, `expires`
 *   past, a Content-Digest that is not the body's, a wrong MAC): refused, whatever the policy;
 * - valid: accepted when its nonce was not used with this key pair before (by any process on the
 *   database) while a request carrying it could be accepted, i.e. until `created` + maxAge. That
 *   is for the caller to find out: the nonce comes back as the claim to make (see
 *   nonce-claims.ts), which must be recorded before the request is answered.
 */
export function checkMessageSignature(
  message: ReceivedMessage,
  check: MessageSignatureCheck,
): MessageSignatureOutcome {
  const { publicKey, credential, maxAgeSeconds, now } = check;
  const verdict = verifyMessageSignatureSync(message, {
    keyId: publicKey,
    secretKey: credential.secretKey,
    now: Math.floor(now / 1000),
    maxSkewSeconds: maxAgeSeconds,
  });
  const decision = decideMessageSignature(
    verdict,
    credential.signaturePolicy !== 'any',
    maxAgeSeconds,
  );
  if (decision.action === 'accept') return {};
  if (decision.action === 'refuse') return { refused: `message-signature-${decision.reason}` };
  return {
    nonce: {
      publicKey,
      nonce: decision.nonce,
      expiresAt: new Date(decision.expiresAt),
      now: new Date(now),
    },
  };
}
