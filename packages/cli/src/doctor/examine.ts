/**
 * What the doctor finds in a request: both signatures checked with the institution's secret key,
 * as the service checks them, and each failure diagnosed by `@institution-api/signing`'s
 * `diagnoseSignature`, the function a sandbox answers its `diagnosis` with (spec:
 * `Problem.diagnosis`), so the doctor and the sandbox name the same cause.
 *
 * @module
 */
import { documentedKeyOrders } from '@institution-api/runtime/spec';
import {
  bodyFingerprint,
  describeMessageSignature,
  type MessageSignatureDescription,
  type MessageSignatureVerdict,
  parseAuthorization,
  presentedPublicKey,
  type ReceivedMessage,
  routedTarget,
  type SignatureDiagnosis,
  type SignatureOptions,
  signatureBaseFor,
  type TargetUri,
  verify,
  verifyMessageSignature,
} from '@institution-api/signing';
import { diagnoseSignature } from '@institution-api/signing/node';
import { openapiDocument } from '@institution-api/types';
import { type HttpRequestMessage, UnreadableMessage } from './http-message.js';

/** The orders of the spec's request bodies: a body signed in one, sent in another, is found. */
const keyOrders = documentedKeyOrders(openapiDocument);

/**
 * A sandbox's budget, but for its time: offline, on a cold process, the same search may take
 * longer, and nobody else's refusals wait on it.
 */
const budget = { maxMilliseconds: 10_000 };

/** How the doctor checks, as the service is configured. */
export interface ExamineOptions {
  secretKey: string;
  /** SIGNATURE_ALGORITHM and SIGNATURE_ENCODING of the service. */
  signature: SignatureOptions;
  /** The clock `created` is compared with (UNIX seconds). */
  now: number;
  /** How far `created` may be from `now`. */
  maxAgeSeconds: number;
  /** The origin the request was sent to, when not `http://` and its `Host`. */
  origin?: string | undefined;
  /** INSTITUTION_PUBLIC_KEY, when given: the key a message signature's keyid is looked up by. */
  publicKey?: string | undefined;
}

/** The verdict on the `Authorization` signature. */
export type AuthorizationFinding =
  | { status: 'missing' }
  | { status: 'valid'; publicKey: string }
  | { status: 'invalid'; publicKey: string | undefined; diagnosis: SignatureDiagnosis };

/** The verdict on the message signature, with what a verifier computes from the request. */
export interface MessageSignatureFinding {
  verdict: MessageSignatureVerdict;
  /** What `Signature-Input` says of the signature for the key (label, components, parameters). */
  description?: MessageSignatureDescription;
  /** The signature base computed from the request (no secret in it). */
  signatureBase?: string;
  diagnosis?: SignatureDiagnosis;
}

/** Everything the doctor reports on one request. */
export interface Examination {
  method: string;
  target: TargetUri;
  body: Uint8Array;
  fingerprint: { length: number; sha256: string };
  authorization: AuthorizationFinding;
  messageSignature: MessageSignatureFinding | undefined;
}

/**
 * Checks `request`'s two signatures with the secret key. The target URI is derived as a service
 * routes it (`routedTarget`: the request-target, then `Host`, or `origin`), so `@path`,
 * `@authority`… are what the service computes. Throws {@link UnreadableMessage} for a request
 * whose target cannot be routed.
 */
export async function examine(
  request: HttpRequestMessage,
  options: ExamineOptions,
): Promise<Examination> {
  const hosts = request.fields.filter(([name]) => name === 'host').map(([, value]) => value);
  const routed = routedTarget({
    method: request.method,
    target: request.target,
    host: hosts,
    scheme: options.origin?.startsWith('https:') ? 'https' : 'http',
    publicOrigin: options.origin,
    connection: { localAddress: '127.0.0.1', localPort: 80 },
  });
  if (routed.refused) throw new UnreadableMessage(routed.detail);
  const message: ReceivedMessage = {
    method: request.method,
    url: routed.target,
    header: (name) => {
      const values = request.fields.filter(([field]) => field === name).map(([, value]) => value);
      return values.length === 0 ? undefined : values.join(', ');
    },
    body: request.body,
  };
  const header = message.header('authorization');
  const presented = parseAuthorization(header, options.signature);
  const named = presented?.publicKey ?? presentedPublicKey(header);
  // The secret key sent where the public key goes: said, and never used as a key id.
  const secretAsKey = named?.includes(options.secretKey) === true;
  const publicKey = secretAsKey ? options.publicKey : (named ?? options.publicKey);
  const diagnosisOptions = {
    publicKey: publicKey ?? '',
    secretKey: options.secretKey,
    signature: options.signature,
    now: options.now,
    maxSkewSeconds: options.maxAgeSeconds,
    documentedKeyOrders: keyOrders,
    budget,
  };
  let authorization: AuthorizationFinding;
  if (header === undefined) {
    authorization = { status: 'missing' };
  } else if (secretAsKey) {
    authorization = {
      status: 'invalid',
      publicKey: undefined,
      diagnosis: {
        cause: 'key-misused',
        signature: 'authorization',
        key: 'secret-as-public-key',
        explanation:
          'The Authorization header carries the secret key where the public key goes: the service knows no such public key and answers 401, and whoever saw this request now holds the secret key. Rotate this key pair, then send Authorization: <publicKey>:<signature>, the public key before the colon; the secret key only keys the HMAC and is never sent.',
        body: await bodyFingerprint(request.body),
      },
    };
  } else if (
    presented &&
    (await verify(request.body, presented.signature, options.secretKey, options.signature))
  ) {
    authorization = { status: 'valid', publicKey: presented.publicKey };
  } else {
    const diagnosis = await diagnoseSignature(message, {
      ...diagnosisOptions,
      only: 'authorization',
    });
    if (diagnosis === undefined)
      throw new Error('an invalid Authorization signature without a diagnosis');
    authorization = { status: 'invalid', publicKey: named, diagnosis };
  }
  return {
    method: request.method,
    target: routed.target,
    body: request.body,
    fingerprint: await bodyFingerprint(request.body),
    authorization,
    messageSignature:
      publicKey === undefined ? undefined : await messageSignatureOf(message, diagnosisOptions),
  };
}

async function messageSignatureOf(
  message: ReceivedMessage,
  options: {
    publicKey: string;
    secretKey: string;
    now: number;
    maxSkewSeconds: number;
    signature: SignatureOptions;
    documentedKeyOrders: readonly (readonly string[])[];
    budget: { maxMilliseconds: number };
  },
): Promise<MessageSignatureFinding> {
  const verdict = await verifyMessageSignature(message, {
    keyId: options.publicKey,
    secretKey: options.secretKey,
    now: options.now,
    maxSkewSeconds: options.maxSkewSeconds,
  });
  const finding: MessageSignatureFinding = { verdict };
  const description = describeMessageSignature(message, options.publicKey);
  if (description) {
    finding.description = description;
    try {
      finding.signatureBase = signatureBaseFor(
        message,
        message.header('signature-input') ?? '',
        description.label,
      );
    } catch {
      // A component this request does not carry: the diagnosis names it.
    }
  }
  if (verdict.status === 'invalid') {
    const diagnosis = await diagnoseSignature(message, { ...options, only: 'message-signature' });
    if (diagnosis) finding.diagnosis = diagnosis;
  }
  return finding;
}
