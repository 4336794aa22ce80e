/**
 * The mock's check of a request's signatures, as the reference server checks them (spec:
 * `InstitutionSignature`, "Assumptions", "Authentication" and message signatures), with
 * `@institution-api/signing`'s Web Crypto entry, so it runs in browsers too.
 *
 * @module
 */
import { documentedKeyOrders } from '@institution-api/runtime/spec';
import {
  DEFAULT_MAX_SKEW_SECONDS,
  decideMessageSignature,
  diagnoseSignature,
  parseAuthorization,
  presentedPublicKey,
  type SignatureDiagnosis,
  type SignatureOptions,
  type TargetUri,
  verify,
  verifyMessageSignature,
} from '@institution-api/signing';
import { openapiDocument } from '@institution-api/types';
import type { MockInstitution } from './institutions.js';

/** The orders of the spec's request bodies: a body signed in one, sent in another, is found. */
const keyOrders = documentedKeyOrders(openapiDocument);

/** How far a message signature's `created` may be from the clock, by default (seconds). */
export const defaultMessageSignatureMaxAgeSeconds = DEFAULT_MAX_SKEW_SECONDS;

/** A request as the check needs it. */
export interface SignedRequest {
  method: string;
  /** The target URI the request is routed by (`routedTarget`), or the URL it was sent to. */
  url: string | TargetUri;
  headers: Headers;
  /** The exact bytes received. */
  body: Uint8Array;
}

/** Options of {@link createAuthenticator}. */
export interface AuthenticatorOptions {
  /** The algorithm and encoding of the `Authorization` signature; SHA-256, hex by default. */
  signature?: SignatureOptions;
  /** The clock, in milliseconds. */
  now?: () => number;
  /** How far a message signature's `created` may be from `now`, in seconds; 300 by default. */
  messageSignatureMaxAgeSeconds?: number;
  /**
   * Whether a refusal for a known key pair says why, as a sandbox does (spec:
   * `Problem.diagnosis`); true by default: the mock is a sandbox.
   */
  signatureDiagnosis?: boolean;
  /**
   * The diagnosis run: `@institution-api/signing`'s, on Web Crypto, by default. The mock's server
   * on Node gives the `./node` entry's (the same answers, its time bound read on CPU time, as the
   * reference server's), so that a busy machine does not end its diagnoses early.
   */
  diagnose?: typeof diagnoseSignature;
}

/**
 * The outcome of a check: the institution that signed the request, or a refusal (a `401`), with
 * its diagnosis when the key pair is known and diagnosis is on.
 */
export type Authentication =
  | { institution: MockInstitution; diagnosis?: undefined }
  | { institution?: undefined; diagnosis?: SignatureDiagnosis };

/** Checks a request. */
export type Authenticator = ((request: SignedRequest) => Promise<Authentication>) & {
  /** Forgets every nonce seen. */
  reset(): void;
};

/**
 * The check of the reference server, in memory:
 * 1. `Authorization: <publicKey>:<signature>`, the HMAC of the exact body bytes with the pair's
 *    secret key, compared in constant time (`crypto.subtle.verify`); an unknown key costs one
 *    HMAC too.
 * 2. The RFC 9421 message signature, keyed with the same secret: required on a pair whose
 *    `messageSignature` is `"required"`, checked whenever present (an invalid one is refused
 *    under either policy), its nonce accepted once per key pair while it is fresh.
 * Every refusal is the same `401` for the caller, except that a known key pair's says why (the
 * sandbox's `diagnosis`, `@institution-api/signing`'s `diagnoseSignature`, as the reference
 * server in sandbox mode answers it) unless `signatureDiagnosis` is false.
 */
export function createAuthenticator(
  institutions: readonly MockInstitution[],
  options: AuthenticatorOptions = {},
): Authenticator {
  const byPublicKey = new Map(institutions.map((entry) => [entry.publicKey, entry]));
  const {
    signature = {},
    now = Date.now,
    signatureDiagnosis = true,
    diagnose = diagnoseSignature,
  } = options;
  const maxAgeSeconds =
    options.messageSignatureMaxAgeSeconds ?? defaultMessageSignatureMaxAgeSeconds;
  /** `publicKey \n nonce` → when it may be forgotten (ms). */
  const nonces = new Map<string, number>();

  const claimNonce = (key: string, expiresAt: number, at: number) => {
    if (nonces.size > 1000) {
      for (const [seen, until] of nonces) if (until <= at) nonces.delete(seen);
    }
    const until = nonces.get(key);
    if (until !== undefined && until > at) return false;
    nonces.set(key, expiresAt);
    return true;
  };

  const authenticate = async (request: SignedRequest): Promise<Authentication> => {
    const at = now();
    const message = {
      method: request.method,
      url: request.url,
      header: (name: string) => request.headers.get(name) ?? undefined,
      body: request.body,
    };
    /** The refusal of a request signed for `institution` (known), with its diagnosis. */
    const refused = async (
      institution: MockInstitution | undefined,
      nonceReused?: boolean,
    ): Promise<Authentication> =>
      institution && signatureDiagnosis
        ? {
            diagnosis: await diagnose(message, {
              publicKey: institution.publicKey,
              secretKey: institution.secretKey,
              signature,
              now: Math.floor(at / 1000),
              maxSkewSeconds: maxAgeSeconds,
              messageSignatureRequired: institution.messageSignature === 'required',
              nonceReused,
              documentedKeyOrders: keyOrders,
            }),
          }
        : {};
    const header = request.headers.get('authorization');
    const presented = parseAuthorization(header, signature);
    if (!presented) {
      // A known key with a signature written otherwise (a scheme word before it, Basic
      // credentials, a space): the sandbox says how it must be written.
      const publicKey = presentedPublicKey(header);
      return refused(publicKey === undefined ? undefined : byPublicKey.get(publicKey));
    }
    const institution = byPublicKey.get(presented.publicKey);
    if (!institution) {
      await verify(request.body, presented.signature, 'no-such-institution', signature);
      return {};
    }
    if (!(await verify(request.body, presented.signature, institution.secretKey, signature))) {
      return refused(institution);
    }
    const verdict = await verifyMessageSignature(message, {
      keyId: presented.publicKey,
      secretKey: institution.secretKey,
      now: Math.floor(at / 1000),
      maxSkewSeconds: maxAgeSeconds,
    });
    const decision = decideMessageSignature(
      verdict,
      institution.messageSignature === 'required',
      maxAgeSeconds,
    );
    if (decision.action === 'accept') return { institution };
    if (decision.action === 'refuse') return refused(institution);
    const key = `${presented.publicKey}\n${decision.nonce}`;
    return claimNonce(key, decision.expiresAt, at) ? { institution } : refused(institution, true);
  };
  return Object.assign(authenticate, { reset: () => nonces.clear() });
}
