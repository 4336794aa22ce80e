import { unauthorizedDetail } from '@institution-api/runtime/http';
import {
  parseAuthorization,
  presentedPublicKey,
  type SignatureDiagnosis,
  type SignatureOptions,
  verifySync,
} from '@institution-api/signing/node';
import type { Request, RequestHandler } from 'express';
import type { CredentialLookup } from '../credentials/credential-cache.js';
import type { FoundCredential, NonceClaim } from '../storage/types.js';
import {
  checkMessageSignature,
  defaultMessageSignatureMaxAgeSeconds,
  type MessageSignatureRefusal,
  receivedMessage,
} from './message-signature.js';
import { HttpProblem, problemKinds } from './problem.js';
import type { RefusalCounter } from './refusal-limit.js';
import { diagnoseRefusal } from './signature-diagnosis.js';

/** The institution a request was signed by, for the operations that follow authentication. */
export interface CallingInstitution {
  id: string;
  name: string;
}

declare global {
  namespace Express {
    interface Locals {
      /** Set by {@link authenticate} once the signature verified. */
      institution?: CallingInstitution;
      /**
       * Set by {@link authenticate}: the nonce of the request's valid message signature, not yet
       * recorded. Whatever answers the request records it first (nonce-claims.ts).
       */
      unclaimedNonce?: NonceClaim;
      /**
       * Set by {@link authenticate} beside `unclaimedNonce`: the refusal of the request should its
       * nonce turn out to be reused (nonce-claims.ts), counted as every refusal is and, in the
       * sandbox, with its diagnosis.
       */
      refuseReplay?: () => Promise<HttpProblem>;
    }
  }
}

/** Why a request was refused; logged, never answered. */
export type AuthenticationFailure =
  | 'missing-header'
  | 'malformed-header'
  | 'unknown-public-key'
  | 'revoked-public-key'
  | 'expired-public-key'
  | 'wrong-signature'
  | MessageSignatureRefusal;

/** Options of {@link authenticate}. */
export interface AuthenticateOptions {
  /** Signature algorithm and encoding (SIGNATURE_ALGORITHM, SIGNATURE_ENCODING). */
  signature?: SignatureOptions;
  /** Told of each request whose signature verified (credentials/last-used.ts); never awaited. */
  onAuthenticated?: (publicKey: string) => void;
  /** The clock a key's expiry and a message signature's `created` are compared with (ms). */
  now?: () => number;
  /** MESSAGE_SIGNATURE_MAX_AGE_SECONDS: how far `created` may be from `now`; default 300. */
  messageSignatureMaxAgeSeconds?: number;
  /**
   * SANDBOX_DIAGNOSIS: a refusal for a known, usable key pair says why, in the `401`'s `diagnosis`
   * (signature-diagnosis.ts); off by default, as in production.
   */
  diagnose?: boolean;
  /**
   * Counts each refusal, before any costly work on it (refusal-limit.ts): over a limit, the `429`
   * it gives is answered instead of the `401`, with no diagnosis. None: refusals are not limited.
   */
  refusals?: RefusalCounter | undefined;
}

/**
 * Verifies `Authorization: <publicKey>:<signature>` (the key pair from `findCredential`, in the
 * server a short-lived cache over the storage: see credential-cache.ts) over the exact raw body bytes (`req.body` is
 * still the Buffer from {@link readRawBody}), before JSON parsing or validation, so nothing about
 * an unauthenticated request is looked at (spec: `InstitutionSignature`; spec Assumptions,
 * "Signature").
 *
 * Every failure answers the same 401 problem; only the log says which check failed, with the
 * public key but never a secret, a presented or an expected signature. A revoked or expired key
 * is refused exactly as an unknown one (spec: "Assumptions", credentials: nothing tells a caller
 * that the key existed), and like it still costs one HMAC, so the answer time does not tell these
 * apart from a wrong signature at the HMAC step. `verifySync` compares in constant time. A key's
 * expiry is compared with the clock on every request, so it holds to the millisecond; a
 * revocation takes effect once the lookup's cache forgets the key (5 s: credential-cache.ts).
 *
 * Then the RFC 9421 message signature (`Signature-Input`, `Signature`, `Content-Digest`; see
 * message-signature.ts), keyed with the same secret: required on a key pair whose policy is
 * `message-signature`, checked whenever present (an invalid one is refused under either policy).
 * Its nonce is left in `res.locals.unclaimedNonce`, to be recorded once per key pair, in the
 * database, by whatever answers the request (nonce-claims.ts): the write the request makes, in
 * its own transaction, or a claim of its own before any other answer; so a replay through any
 * server process is refused. Its refusals are the same 401; the log says which check failed.
 *
 * With `diagnose` (the sandbox), a refusal for a key pair that is known and usable (neither
 * expired nor revoked) also says why, in the 401's `diagnosis` (spec: `Problem.diagnosis`): a
 * malformed header whose key is such a pair's, a wrong signature, a refused message signature,
 * and (through `res.locals.refuseReplay`) a reused nonce. An unknown, expired or revoked key
 * gets the plain 401, as everything does without `diagnose`.
 *
 * With `refusals`, every refusal is counted first, against the client's address and the public
 * key it presents, known or not (refusal-limit.ts); over a limit it is answered with that `429`
 * instead, and gets no diagnosis, nor does one paced for coming too fast. A request whose
 * signatures verify is never counted there: the accepted path costs nothing more.
 */
export function authenticate(
  findCredential: CredentialLookup,
  options: AuthenticateOptions = {},
): RequestHandler {
  const {
    signature = {},
    onAuthenticated,
    now = Date.now,
    messageSignatureMaxAgeSeconds = defaultMessageSignatureMaxAgeSeconds,
    diagnose = false,
    refusals,
  } = options;
  return async (req, res, next) => {
    const body: Buffer = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    /**
     * The answer to a refusal: counted first, against the key the request `presented` (known or
     * not); over a limit, its `429`; else the `401`, with `explain()`'s diagnosis in the sandbox
     * and `logged` as the public key in the log.
     */
    const refusal = async (
      reason: AuthenticationFailure,
      presented: string | undefined,
      logged?: string,
      explain?: () => Promise<SignatureDiagnosis | undefined>,
    ): Promise<HttpProblem> => {
      const counted = await refusals?.(req, res, presented);
      if (counted?.over) {
        req.log.debug(
          { reason, publicKey: logged?.slice(0, 100) },
          'authentication failed, limited',
        );
        return counted.over;
      }
      const diagnosis = counted?.paced ? undefined : await explain?.();
      return unauthenticated(req, reason, logged, diagnosis);
    };
    const refuse = async (
      reason: AuthenticationFailure,
      presented: string | undefined,
      logged?: string,
      explain?: () => Promise<SignatureDiagnosis | undefined>,
    ) => next(await refusal(reason, presented, logged, explain));
    const target = res.locals.target;
    if (!target) throw new Error('authenticate runs after routeOnTarget (http/request-target.ts)');
    const at = now();
    /** The sandbox's diagnosis of a refusal for `credential`, none otherwise. */
    const diagnosis = async (
      publicKey: string,
      credential: FoundCredential | null | undefined,
      nonceReused?: boolean,
    ) =>
      diagnose && credential && usable(credential, at)
        ? diagnoseRefusal(req, target, body, {
            credential,
            publicKey,
            signature,
            now: at,
            maxAgeSeconds: messageSignatureMaxAgeSeconds,
            nonceReused,
          })
        : undefined;

    const header = req.get('authorization');
    if (header === undefined) return refuse('missing-header', undefined);
    const presented = parseAuthorization(header, signature);
    if (!presented) {
      const publicKey = presentedPublicKey(header);
      if (!diagnose || publicKey === undefined) return refuse('malformed-header', publicKey);
      // A known key with a signature written otherwise: the sandbox says how it must be written.
      const credential = await findCredential(publicKey);
      return refuse('malformed-header', publicKey, credential ? publicKey : undefined, () =>
        diagnosis(publicKey, credential),
      );
    }
    const credential = await findCredential(presented.publicKey);
    const unusable: AuthenticationFailure | undefined = !credential
      ? 'unknown-public-key'
      : credential.revokedAt
        ? 'revoked-public-key'
        : !usable(credential, at)
          ? 'expired-public-key'
          : undefined;
    const explain = () => diagnosis(presented.publicKey, credential);
    if (!credential || unusable) {
      verifySync(body, presented.signature, 'no-such-institution', signature);
      // An unknown key is not logged: it could be a secret sent where the public key goes.
      return refuse(
        unusable ?? 'unknown-public-key',
        presented.publicKey,
        credential ? presented.publicKey : undefined,
      );
    }
    if (!verifySync(body, presented.signature, credential.secretKey, signature)) {
      return refuse('wrong-signature', presented.publicKey, presented.publicKey, explain);
    }
    const { refused, nonce } = checkMessageSignature(receivedMessage(req, target, body), {
      publicKey: presented.publicKey,
      credential,
      maxAgeSeconds: messageSignatureMaxAgeSeconds,
      now: at,
    });
    if (refused) return refuse(refused, presented.publicKey, presented.publicKey, explain);
    if (nonce) {
      res.locals.unclaimedNonce = nonce;
      res.locals.refuseReplay = () =>
        refusal('message-signature-replayed', presented.publicKey, presented.publicKey, () =>
          diagnosis(presented.publicKey, credential, true),
        );
    }
    res.locals.institution = { id: credential.institutionId, name: credential.institution };
    onAuthenticated?.(presented.publicKey);
    next();
  };
}

/** Neither revoked nor expired at `now` (ms): a key pair whose refusals a sandbox explains. */
function usable(credential: FoundCredential, now: number): boolean {
  return !credential.revokedAt && !(credential.expiresAt && credential.expiresAt.getTime() <= now);
}

/**
 * The one 401 of every refusal (spec: `Unauthorized`), with the reason in the log only, beside
 * the public key (never a secret, a presented or an expected signature), and in the sandbox the
 * `diagnosis` of a known key pair's refusal.
 */
export function unauthenticated(
  req: Request,
  reason: AuthenticationFailure,
  publicKey?: string,
  diagnosis?: SignatureDiagnosis,
): HttpProblem {
  req.log.warn(
    {
      reason,
      ...(publicKey === undefined ? {} : { publicKey: publicKey.slice(0, 100) }),
      ...(diagnosis === undefined ? {} : { cause: diagnosis.cause }),
    },
    'authentication failed',
  );
  return new HttpProblem(
    problemKinds.unauthorized,
    unauthorizedDetail,
    undefined,
    undefined,
    diagnosis,
  );
}
