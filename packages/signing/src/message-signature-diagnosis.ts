/**
 * The diagnosis of an RFC 9421 message signature a verifier refused (spec: `SignatureDiagnosis`,
 * `signature: message-signature`): absent where required, fields that cannot be read, another
 * `keyid`, `alg`, a required component not covered, `created` or `nonce` missing, `created` out of
 * the window (in milliseconds, in local time), `expires` past, a `Content-Digest` written
 * otherwise or of other bytes, a nonce used before, a MAC in hex, a misused key, or a MAC that
 * verifies once a component takes a value signers often sign by mistake. Each with the signature
 * base computed from the request and the part found wrong.
 *
 * @module
 */
import { parseDictionary } from 'structured-headers';
import { type BaseCandidate, baseCandidates } from './base-candidates.js';
import { bodyVariants } from './body-variants.js';
import {
  type BodyFingerprint,
  type DiagnosedComponent,
  type DiagnoseSignatureOptions,
  type DiagnosisRun,
  fingerprint,
  firstVariant,
  gaveUp,
  type SignatureDiagnosis,
} from './diagnosis-common.js';
import { bytesToBase64, bytesToHex } from './encoding.js';
import {
  type ContentDigestAlgorithm,
  DEFAULT_MAX_SKEW_SECONDS,
  formatContentDigest,
  type LocatedMessageSignature,
  locateMessageSignature,
  MAX_NONCE_LENGTH,
  MESSAGE_SIGNATURE_ALGORITHM,
  type MessageSignatureFailure,
  parseContentDigest,
  type ReceivedMessage,
  signatureBase,
} from './message-signature.js';
import {
  createdUnitProblem,
  digestFormProblem,
  malformedPart,
} from './message-signature-fields.js';
import { findKeyMisuse } from './misused-keys.js';

const utf8 = new TextEncoder();

type Differs = (
  explanation: string,
  component?: DiagnosedComponent,
  extra?: Partial<SignatureDiagnosis>,
) => SignatureDiagnosis;

interface FailureContext {
  message: ReceivedMessage;
  found: LocatedMessageSignature | undefined;
  base: string | undefined;
  now: number;
  skew: number;
  options: DiagnoseSignatureOptions;
  differs: Differs;
  run: DiagnosisRun;
}

const compareBase =
  'signatureBase is the base this service computed from the request it received: compare it line by line with the one you signed.';

/**
 * The diagnosis of `message`'s message signature for this key pair, or undefined when it holds
 * (or is absent where the key pair does not require one) and its nonce is fresh.
 */
export async function diagnoseMessageSignature(
  message: ReceivedMessage,
  body: BodyFingerprint,
  options: DiagnoseSignatureOptions,
  run: DiagnosisRun,
): Promise<SignatureDiagnosis | undefined> {
  const now = options.now ?? Math.floor(Date.now() / 1000);
  const skew = options.maxSkewSeconds ?? DEFAULT_MAX_SKEW_SECONDS;
  const verdict = await run.crypto.verifyMessageSignature(message, {
    keyId: options.publicKey,
    secretKey: options.secretKey,
    now,
    maxSkewSeconds: skew,
  });
  const located = locateMessageSignature(message, options.publicKey);
  const found = located.status === 'found' ? located : undefined;
  const base = found ? baseOf(message, found) : undefined;
  const differs: Differs = (explanation, component, extra) => ({
    cause: 'signature-base-differs',
    signature: 'message-signature',
    explanation,
    body,
    ...(base === undefined ? {} : { signatureBase: base }),
    ...(component ? { component } : {}),
    ...extra,
  });

  if (verdict.status === 'absent') {
    return options.messageSignatureRequired
      ? differs(
          'This key pair requires an RFC 9421 message signature, and the request carries none: send Content-Digest, Signature-Input and Signature beside Authorization.',
          { name: 'signature-input', problem: 'missing' },
        )
      : undefined;
  }
  if (verdict.status === 'valid') {
    if (verdict.nonce.length > MAX_NONCE_LENGTH) {
      return differs(
        `The message signature's nonce is longer than ${MAX_NONCE_LENGTH} characters; make a shorter one.`,
        { name: 'nonce', problem: 'malformed' },
      );
    }
    if (options.nonceReused) {
      return differs(
        'The message signature verifies, but its nonce was used with this key pair before: a request is accepted once. Sign every request anew, a retry too, with a new nonce and created.',
        { name: 'nonce', problem: 'reused', signed: verdict.nonce },
      );
    }
    return undefined;
  }
  return explainFailure(verdict.reason, { message, found, base, now, skew, options, differs, run });
}

function explainFailure(
  reason: MessageSignatureFailure,
  context: FailureContext,
): SignatureDiagnosis | Promise<SignatureDiagnosis> {
  const { message, found, now, skew, options, differs } = context;
  const params = found?.innerList[1];
  switch (reason) {
    case 'malformed': {
      const part = malformedPart(message, found, options.publicKey);
      return differs(
        `The message signature cannot be read: ${part.words}. Signature-Input and Signature are RFC 8941 dictionaries with a member of the same label each, the MAC a byte sequence (:base64:), and every covered component must be in the request.`,
        part.component,
      );
    }
    case 'no-signature-for-key':
      return keyIdDiffers(message, options, differs);
    case 'unsupported-algorithm': {
      const alg = String(params?.get('alg'));
      return differs(
        `The message signature's alg must be "${MESSAGE_SIGNATURE_ALGORITHM}", in lowercase.`,
        {
          name: 'alg',
          problem: 'unsupported',
          // An algorithm's name is shown; anything longer could be a secret put there by mistake.
          ...(/^[A-Za-z0-9_-]{1,32}$/.test(alg) ? { signed: alg } : {}),
          computed: MESSAGE_SIGNATURE_ALGORITHM,
        },
      );
    }
    case 'missing-required-component': {
      const name = missingComponent(found, message.body.length > 0);
      return differs(
        `The message signature does not cover "${name}": it must cover "@method", "@path" (or "@target-uri") and, with a body, "content-digest". ${compareBase}`,
        { name, problem: 'missing' },
      );
    }
    case 'missing-created':
      return createdMissing(params?.get('created'), differs);
    case 'missing-nonce':
      return differs(
        'The message signature has no nonce parameter; it needs one: a new random value for each request (nonce="…"), which libraries leave out unless asked (with http-message-signatures: "nonce" in params and its value in paramValues).',
        { name: 'nonce', problem: 'missing' },
      );
    case 'stale': {
      const created = Number(params?.get('created'));
      const unit = createdUnitProblem(created, now, skew);
      return differs(
        `The message signature's created (${created}) is ${Math.abs(now - created)} s ${created < now ? 'before' : 'after'} this service's clock (${now}); it must be within ${skew} s. ${unit ?? 'Sign each request when you send it, with your clock set right (NTP).'}`,
        {
          name: 'created',
          problem: 'stale',
          signed: String(created),
          computed: `${now} ± ${skew}`,
        },
      );
    }
    case 'expired':
      return differs(
        `The message signature's expires (${String(params?.get('expires'))}) is not after this service's clock (${now}).`,
        {
          name: 'expires',
          problem: 'stale',
          signed: String(params?.get('expires')),
          computed: String(now),
        },
      );
    case 'content-digest-mismatch':
      return contentDigestDiffers(context);
    case 'wrong-signature':
      return wrongSignature(context);
  }
}

/** `created` there but not a whole number: a string, a decimal. */
function createdMissing(created: unknown, differs: Differs): SignatureDiagnosis {
  if (created === undefined) {
    return differs(
      'The message signature has no created parameter; it needs one: the UNIX time in seconds when it was made.',
      {
        name: 'created',
        problem: 'missing',
      },
    );
  }
  const what =
    typeof created === 'string'
      ? 'a string in quotes (a date, say)'
      : typeof created === 'number'
        ? 'a decimal number'
        : 'not a number';
  return differs(
    `The message signature's created is ${what}: it is a whole number of seconds since the epoch (UNIX time), unquoted: created=1767225600.`,
    { name: 'created', problem: 'malformed' },
  );
}

/** No signature names this key pair's public key in `keyid`: say so, never repeating a keyid. */
function keyIdDiffers(
  message: ReceivedMessage,
  options: DiagnoseSignatureOptions,
  differs: Differs,
): SignatureDiagnosis {
  const keyIds: string[] = [];
  for (const [, member] of parseDictionary(message.header('signature-input') ?? '')) {
    const keyId = member[1].get('keyid');
    if (keyId !== undefined) keyIds.push(String(keyId));
  }
  const component: DiagnosedComponent = {
    name: 'keyid',
    problem: keyIds.length === 0 ? 'missing' : 'mismatched',
    computed: options.publicKey,
  };
  if (keyIds.length === 0) {
    return differs(
      `The message signature has no keyid parameter: add keyid="${options.publicKey}", the public key of the Authorization header.`,
      component,
    );
  }
  const secret = options.secretKey;
  if (
    keyIds.some((keyId) => keyId.includes(secret) || (keyId.length >= 12 && secret.includes(keyId)))
  ) {
    return differs(
      `The message signature's keyid holds this key pair's secret key (not shown here): the secret key is never sent. Whoever saw this request has it now: rotate this key pair, and put the public key in keyid, keyid="${options.publicKey}".`,
      component,
    );
  }
  return differs(
    `No signature of Signature-Input has keyid="${options.publicKey}", the public key of the Authorization header: its keyid is another value, not shown (it is not a known public key, and could be a secret). Put the public key in keyid.`,
    component,
  );
}

/** The first required component a signature does not cover. */
function missingComponent(found: LocatedMessageSignature | undefined, hasBody: boolean): string {
  const covered = new Set(found?.innerList[0].map(([name]) => name));
  if (!covered.has('@method')) return '@method';
  if (!covered.has('@path') && !covered.has('@target-uri')) return '@path';
  return hasBody ? 'content-digest' : '@path';
}

async function contentDigestDiffers(context: FailureContext): Promise<SignatureDiagnosis> {
  const { message, differs, run, options } = context;
  const { crypto, spending } = run;
  const signed = message.header('content-digest') ?? '';
  const claims = parseContentDigest(signed);
  const digests = {
    'sha-256': await crypto.digest('sha-256', message.body),
    'sha-512': await crypto.digest('sha-512', message.body),
  };
  const algorithms: ContentDigestAlgorithm[] = claims ? [...claims.keys()] : ['sha-256'];
  const component: DiagnosedComponent = {
    name: 'content-digest',
    problem: claims ? 'mismatched' : 'malformed',
    signed,
    computed: algorithms
      .map((algorithm) => formatContentDigest(algorithm, digests[algorithm]))
      .join(', '),
  };
  const form = digestFormProblem(signed, digests);
  if (form) return differs(form, { ...component, problem: 'malformed' });
  // Of which bytes the claimed digest is, when they are the body written otherwise.
  const [algorithm, claimed] = claims ? ([...claims][0] ?? []) : [];
  if (algorithm && claimed) {
    const claimedHex = bytesToHex(claimed);
    const url = typeof message.url === 'string' ? new URL(message.url) : message.url;
    const variant = await firstVariant(
      bodyVariants(message.body, spending, {
        method: message.method,
        path: url.pathname,
        documentedKeyOrders: options.documentedKeyOrders,
      }),
      async (bytes) => bytesToHex(await crypto.digest(algorithm, bytes)) === claimedHex,
    );
    if (variant) {
      return differs(
        `Content-Digest is the digest of ${variant.signed}, not of the ${message.body.length} bytes this service received. ${variant.advice}`,
        component,
        { signedBody: { ...(await fingerprint(crypto, variant.bytes)), form: variant.form } },
      );
    }
  }
  return differs(
    claims
      ? `Content-Digest is not the digest of the ${message.body.length} bytes received (computed shows theirs). Digest the exact bytes you send.${spending.limit ? ` ${gaveUp(spending, 'the same JSON written otherwise as the bytes digested')}` : ''}`
      : 'Content-Digest is not an RFC 9530 dictionary with a sha-256 or sha-512 byte sequence (sha-256=:<base64>:).',
    component,
  );
}

async function wrongSignature(context: FailureContext): Promise<SignatureDiagnosis> {
  const { message, found, base, options, differs, run } = context;
  const { crypto, spending } = run;
  if (found === undefined || base === undefined) {
    return differs(`The message signature does not verify. ${compareBase}`);
  }
  const data = utf8.encode(base);
  const secret = await crypto.macCheck(utf8.encode(options.secretKey), 'SHA-256');
  const presented = new Uint8Array(found.presented);
  // A MAC written in hex between the colons reads as 48 bytes of base64.
  const asText = bytesToBase64(presented);
  if (/^[0-9a-fA-F]{64}$/.test(asText)) {
    const mac = new Uint8Array(32);
    for (let i = 0; i < 32; i++) mac[i] = Number.parseInt(asText.slice(i * 2, i * 2 + 2), 16);
    const right = spending.take(data.length) && (await secret(mac, data));
    return differs(
      `The MAC in Signature is written in hex between the colons: a byte sequence is base64 (sig1=:<base64>:).${right ? ' So read, it is the right MAC: only its form is wrong.' : ` Even so read, it is not the HMAC-SHA256 of the signature base this service computed. ${compareBase}`}`,
      { name: 'signature', problem: 'malformed' },
    );
  }
  const misuse = await findKeyMisuse(crypto, spending, options, 'SHA-256', presented, data, 'base');
  if (misuse) {
    return {
      ...differs(`The message signature is ${misuse.what}. ${misuse.advice}`),
      cause: 'key-misused',
      key: misuse.key,
    };
  }
  for (const candidate of baseCandidates(message, found, base)) {
    const bytes = utf8.encode(candidate.base);
    if (!spending.take(bytes.length)) break;
    if (await secret(presented, bytes)) return candidateFound(candidate, differs);
  }
  if (spending.limit) {
    return {
      ...differs(
        `The message signature is not the HMAC-SHA256 of the signature base this service computed. ${gaveUp(spending, 'a component written as signers often do by mistake')} ${compareBase} Check that the secret key is this key pair's.`,
      ),
      cause: 'no-known-mistake',
    };
  }
  return differs(
    `The message signature is not the HMAC-SHA256 of the signature base this service computed, nor of it with a component written as signers often do by mistake. ${compareBase} Check that the secret key is this key pair's.`,
  );
}

/** The diagnosis of a base candidate the MAC verifies with. */
function candidateFound(candidate: BaseCandidate, differs: Differs): SignatureDiagnosis {
  const { component, words } = candidate;
  if (component === undefined) {
    return differs(`The signature base you signed ${words}. ${compareBase}`);
  }
  const values =
    `${component.signed}${component.computed}`.length <= 400
      ? ` ("${component.signed}" where this service computed "${component.computed}")`
      : '';
  const field = !component.name.startsWith('@')
    ? ` The request carries another ${component.name} than the one signed: set it on the request as you signed it (an HTTP client sets its own when none is set).`
    : ' Sign the request exactly as you send it.';
  return differs(
    `The message signature verifies with another ${component.name} than the one of the request received${values}.${field} ${compareBase}`,
    component,
  );
}

/** The signature base of a located signature, or undefined when a component cannot be derived. */
function baseOf(message: ReceivedMessage, found: LocatedMessageSignature): string | undefined {
  try {
    return signatureBase(message, found.innerList);
  } catch {
    return undefined;
  }
}
