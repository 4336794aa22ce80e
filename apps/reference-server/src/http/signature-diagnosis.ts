import { documentedKeyOrders } from '@institution-api/runtime/spec';
import {
  diagnoseSignature,
  type SignatureDiagnosis,
  type SignatureOptions,
  type TargetUri,
} from '@institution-api/signing/node';
import { openapiDocument } from '@institution-api/types';
import type { Request } from 'express';
import type { FoundCredential } from '../storage/types.js';
import { receivedMessage } from './message-signature.js';
import { oneTurnEach } from './one-turn-each.js';

/** What {@link diagnoseRefusal} needs beside the request: the key pair and the checks' settings. */
export interface RefusalContext {
  credential: Pick<FoundCredential, 'secretKey' | 'signaturePolicy'>;
  publicKey: string;
  /** SIGNATURE_ALGORITHM and SIGNATURE_ENCODING. */
  signature: SignatureOptions;
  /** The server's clock, in milliseconds. */
  now: number;
  /** MESSAGE_SIGNATURE_MAX_AGE_SECONDS. */
  maxAgeSeconds: number;
  /** The request's message signature verified, but its nonce was used before. */
  nonceReused?: boolean;
}

/**
 * Diagnoses of this process, one at a time, a turn of the event loop apart: refusals that arrive
 * together (a flood over several connections) would otherwise run theirs back to back, and a
 * request arriving among them would wait for all of them rather than for one at most.
 */
const diagnosisTurns = oneTurnEach();

/** The orders of the spec's request bodies: a body signed in one, sent in another, is found. */
const keyOrders = documentedKeyOrders(openapiDocument);

/**
 * The sandbox's `diagnosis` of a request refused for a known key pair (spec: `Problem.diagnosis`,
 * "Assumptions", "Sandbox: why a signature failed"), by `@institution-api/signing`'s
 * `diagnoseSignature` (its node:crypto entry), from the same request, clock and settings as the
 * checks that refused it. Never thrown from: a diagnosis that fails is left out (and logged), and
 * the request gets the plain `401`.
 */
export async function diagnoseRefusal(
  req: Request,
  target: TargetUri,
  body: Uint8Array,
  context: RefusalContext,
): Promise<SignatureDiagnosis | undefined> {
  const { credential, publicKey, signature, now, maxAgeSeconds, nonceReused } = context;
  try {
    return await diagnosisTurns(() =>
      diagnoseSignature(receivedMessage(req, target, body), {
        publicKey,
        secretKey: credential.secretKey,
        signature,
        now: Math.floor(now / 1000),
        maxSkewSeconds: maxAgeSeconds,
        messageSignatureRequired: credential.signaturePolicy !== 'any',
        nonceReused,
        documentedKeyOrders: keyOrders,
      }),
    );
  } catch (error) {
    req.log.error({ err: error }, 'signature diagnosis failed');
    return undefined;
  }
}
