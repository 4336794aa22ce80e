/**
 * Why a request's signature does not verify, as a sandbox tells it (spec: `SignatureDiagnosis`,
 * the `diagnosis` of the `401`; "Assumptions", "Sandbox: why a signature failed"): the known
 * mistakes of a signer are tried one by one against the presented signature, each compared in
 * constant time (`crypto.subtle.verify`), and the first that reproduces it is the cause. Shared by
 * the reference server, the mock, the CLI's `doctor` and the docs console, on Web Crypto, so it
 * runs wherever they do.
 *
 * What it says is computed from the request received and never holds the expected signature,
 * the secret key, or anything else only the secret key gives: a cause (a one-bit answer about the
 * signature the sender made), the received body's length and SHA-256, the RFC 9421 signature
 * base (which covers no secret), and the values of the components the request carries.
 *
 * @module
 */
import { parseDictionary, serializeInnerList, serializeItem } from 'structured-headers';
import { resolveOptions, type SignatureOptions, WEB_CRYPTO_HASH } from './algorithms.js';
import { parseAuthorization } from './authorization-header.js';
import { type BodyVariant, bodyVariants } from './body-variants.js';
import { type DiagnosisBudget, DiagnosisSpending } from './diagnosis-budget.js';
import { type DiagnosisCrypto, type MacCheck, webDiagnosisCrypto } from './diagnosis-crypto.js';
import { bytesToHex, decodeSignature } from './encoding.js';
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

/** The mistakes a diagnosis names (spec: `SignatureDiagnosis.cause`). */
export type SignatureDiagnosisCause =
  | 'body-bytes-differ'
  | 'key-misused'
  | 'signature-base-differs'
  | 'no-known-mistake';

/** Bytes told by their length and SHA-256 (spec: `BodyFingerprint`). */
export interface BodyFingerprint {
  length: number;
  /** Lowercase hex. */
  sha256: string;
}

/** What a misused HMAC key was (spec: `SignatureDiagnosis.key`). */
export type MisusedKey = 'public-key' | 'secret-hex-decoded' | 'secret-base64-decoded';

/** What is wrong with one part of a message signature (spec: `SignatureDiagnosis.component`). */
export interface DiagnosedComponent {
  /** `@path`, `content-digest`, `created`, `nonce`, `keyid`, `alg`, `signature-input`, … */
  name: string;
  problem: 'missing' | 'stale' | 'reused' | 'mismatched' | 'malformed' | 'unsupported';
  /** What the request's signature has for it. */
  signed?: string;
  /** What was computed for it from the request received. */
  computed?: string;
}

/** The diagnosis of a signature that does not verify (spec: `SignatureDiagnosis`). */
export interface SignatureDiagnosis {
  cause: SignatureDiagnosisCause;
  /** Which of the two signatures: the `Authorization` header's, or the RFC 9421 one. */
  signature: 'authorization' | 'message-signature';
  /** The diagnosis in words, with what to do. */
  explanation: string;
  /** The body as received. */
  body: BodyFingerprint;
  /** `body-bytes-differ`: the bytes the signature is the HMAC of, and how they were written. */
  signedBody?: BodyFingerprint & { form: string };
  /** `key-misused`: what the HMAC was keyed with. */
  key?: MisusedKey;
  /** The RFC 9421 signature base computed from the request received, when there is one. */
  signatureBase?: string;
  /** `signature-base-differs`: the part found wrong, when found. */
  component?: DiagnosedComponent;
}

/** What a diagnosis is made with: the key pair the request's `Authorization` header names. */
export interface DiagnoseSignatureOptions {
  /** The public key of the `Authorization` header (a key the verifier knows). */
  publicKey: string;
  /** Its secret key (its UTF-8 bytes are the HMAC key). */
  secretKey: string;
  /** The `Authorization` signature's algorithm and encoding; SHA-256, hex by default. */
  signature?: SignatureOptions | undefined;
  /** UNIX seconds; the current time when omitted. */
  now?: number | undefined;
  /** How far `created` may be from `now`; 300 s by default. */
  maxSkewSeconds?: number | undefined;
  /** Whether the key pair requires a message signature (its policy is `message-signature`). */
  messageSignatureRequired?: boolean | undefined;
  /** Whether the message signature's nonce was used with this key pair before (the caller's store knows). */
  nonceReused?: boolean | undefined;
  /**
   * One signature only, whatever the other: `authorization` or `message-signature` (a tool that
   * reports on both, as the CLI's `doctor`). Both by default, as a verifier checks them: the
   * first that fails.
   */
  only?: 'authorization' | 'message-signature' | undefined;
  /**
   * Bounds of the diagnosis's work (diagnosis-budget.ts); each one omitted is the default's. A
   * diagnosis that reaches one stops looking and says so, as `no-known-mistake`.
   */
  budget?: Partial<DiagnosisBudget> | undefined;
}

const utf8 = new TextEncoder();

/**
 * The diagnosis of a request that a verifier refused, or undefined when both of its signatures
 * hold for this key pair (and its nonce is fresh). The `Authorization` signature is diagnosed
 * first, as it is checked first:
 * - malformed (not the options' alphabet and length): `no-known-mistake`, saying the form;
 * - the HMAC of a re-serialization of the body ({@link bodyVariants}): `body-bytes-differ`;
 * - the HMAC keyed with the public key, or the secret decoded from hex or base64: `key-misused`;
 * - else `no-known-mistake`.
 * Then the message signature, `signature-base-differs` with the signature base and the part
 * found wrong (or `key-misused` when its HMAC was keyed so): absent where required, malformed, for
 * another `keyid`, another `alg`, a required component not covered, `created`, `nonce` missing,
 * stale, expired, a `Content-Digest` of other bytes, a nonce reused, or a MAC that verifies once a
 * derived component (`@method`, `@path`, `@authority`…) takes another value a signer often uses.
 *
 * Its work is bounded by `options.budget` (diagnosis-budget.ts), whatever the request: the
 * candidates it tries (body variants, signature bases, misused keys), the bytes it writes and
 * hashes for them, the shape of a body it re-serializes (depth, values, size) and its time. Once
 * a bound is reached it stops looking: a mistake not found by then is `no-known-mistake`, whose
 * explanation says that the diagnosis gave up and why. The default budget tries every known
 * mistake on any body of the API's shape, at a few milliseconds of CPU at most.
 */
export function diagnoseSignature(
  message: ReceivedMessage,
  options: DiagnoseSignatureOptions,
): Promise<SignatureDiagnosis | undefined> {
  return diagnoseSignatureWith(webDiagnosisCrypto, message, options);
}

/** What one diagnosis computes with, and the budget it spends. */
interface DiagnosisRun {
  crypto: DiagnosisCrypto;
  spending: DiagnosisSpending;
}

/** {@link diagnoseSignature} computing with `crypto` (the `./node` entry's: node:crypto). */
export async function diagnoseSignatureWith(
  crypto: DiagnosisCrypto,
  message: ReceivedMessage,
  options: DiagnoseSignatureOptions,
): Promise<SignatureDiagnosis | undefined> {
  const run: DiagnosisRun = { crypto, spending: new DiagnosisSpending(options.budget) };
  const body = await fingerprint(crypto, message.body);
  if (options.only === 'message-signature') {
    return diagnoseMessageSignature(message, body, options, run);
  }
  const header = message.header('authorization') ?? '';
  const resolved = resolveOptions(options.signature);
  const presented = parseAuthorization(header, resolved);
  if (presented === null) {
    return {
      cause: 'no-known-mistake',
      signature: 'authorization',
      explanation: `The Authorization header is not "<publicKey>:<signature>" with the signature written as this service expects it: ${signatureForm(resolved)}, nothing around it.`,
      body,
    };
  }
  const mac = decodeSignature(presented.signature, resolved) as Uint8Array<ArrayBuffer>;
  const secret = await crypto.macCheck(
    utf8.encode(options.secretKey),
    WEB_CRYPTO_HASH[resolved.algorithm],
  );
  if (!(await secret(mac, new Uint8Array(message.body)))) {
    return diagnoseAuthorization(message.body, body, mac, secret, options, run);
  }
  if (options.only === 'authorization') return undefined;
  return diagnoseMessageSignature(message, body, options, run);
}

/** How the options write a signature, in words. */
function signatureForm({ algorithm, encoding }: Required<SignatureOptions>): string {
  const bytes = algorithm === 'sha256' ? 32 : 64;
  return encoding === 'hex'
    ? `${bytes * 2} lowercase hexadecimal characters (HMAC-${algorithm.toUpperCase()}, hex)`
    : `the padded standard base64 of the ${bytes}-byte HMAC-${algorithm.toUpperCase()}`;
}

async function diagnoseAuthorization(
  received: Uint8Array,
  body: BodyFingerprint,
  mac: Uint8Array<ArrayBuffer>,
  secret: MacCheck,
  options: DiagnoseSignatureOptions,
  run: DiagnosisRun,
): Promise<SignatureDiagnosis> {
  const { crypto, spending } = run;
  const hash = WEB_CRYPTO_HASH[resolveOptions(options.signature).algorithm];
  // The misused keys first: three MACs of the bytes received, whatever the body's shape.
  const misused = await misusedKeyOf(options, hash, mac, received, run);
  if (misused) {
    return {
      cause: 'key-misused',
      signature: 'authorization',
      explanation: `The Authorization signature is the HMAC keyed with ${misusedKeyWords[misused]}. ${rightKey}`,
      body,
      key: misused,
    };
  }
  const variant = await firstVariant(bodyVariants(received, spending), (bytes) =>
    secret(mac, bytes),
  );
  if (variant) {
    const signedBody = { ...(await fingerprint(crypto, variant.bytes)), form: variant.form };
    return {
      cause: 'body-bytes-differ',
      signature: 'authorization',
      explanation:
        `The Authorization signature is the HMAC of the same JSON written otherwise (${variant.form}: ${signedBody.length} bytes), ` +
        `not of the ${body.length} bytes this service received. Sign the exact bytes you send, and send the exact bytes you signed: serialize once.`,
      body,
      signedBody,
    };
  }
  return {
    cause: 'no-known-mistake',
    signature: 'authorization',
    explanation: spending.limit
      ? `The Authorization signature is not the HMAC of the bytes received, nor keyed with a misused key. ${gaveUp(spending, 'the same JSON written otherwise')} ` +
        "Compare body (the length and SHA-256 of the bytes received) with the bytes you signed, and check that the secret key is this key pair's."
      : 'The Authorization signature is not the HMAC of the bytes received, nor of the same JSON written otherwise, nor keyed with a misused key. ' +
        "Compare body (the length and SHA-256 of the bytes received) with the bytes you signed, and check that the secret key is this key pair's.",
    body,
  };
}

/** That a diagnosis gave up looking for `what`, and which bound it reached, in words. */
function gaveUp(spending: DiagnosisSpending, what: string): string {
  return `This service gave up looking for ${what} before trying every known mistake (${spending.words()}: the budget of a diagnosis), so that is not ruled out.`;
}

const misusedKeyWords: Record<MisusedKey, string> = {
  'public-key': 'the public key',
  'secret-hex-decoded': 'the secret key decoded from hex',
  'secret-base64-decoded': 'the secret key decoded from base64',
};

const rightKey =
  'The HMAC key is the secret key\'s UTF-8 bytes, as they are (openssl dgst -hmac "$INSTITUTION_SECRET_KEY"), never decoded.';

/** The misused key whose HMAC of `data` is `mac`, if any (compared in constant time). */
async function misusedKeyOf(
  options: DiagnoseSignatureOptions,
  hash: 'SHA-256' | 'SHA-512',
  mac: Uint8Array<ArrayBuffer>,
  data: Uint8Array,
  { crypto, spending }: DiagnosisRun,
): Promise<MisusedKey | undefined> {
  const signed = new Uint8Array(data);
  for (const [misused, key] of misusedKeys(options.publicKey, options.secretKey)) {
    if (!spending.take(signed.length)) return undefined;
    const check = await crypto.macCheck(key, hash);
    if (await check(mac, signed)) return misused;
  }
  return undefined;
}

/** The keys a signer uses by mistake: the public key, the secret decoded from hex or base64. */
function misusedKeys(publicKey: string, secretKey: string): [MisusedKey, Uint8Array][] {
  const keys: [MisusedKey, Uint8Array][] = [['public-key', utf8.encode(publicKey)]];
  if (/^(?:[0-9a-fA-F]{2})+$/.test(secretKey)) {
    const bytes = new Uint8Array(secretKey.length / 2);
    for (let i = 0; i < bytes.length; i++) {
      bytes[i] = Number.parseInt(secretKey.slice(i * 2, i * 2 + 2), 16);
    }
    keys.push(['secret-hex-decoded', bytes]);
  }
  const base64 = base64Bytes(secretKey);
  if (base64 !== undefined && base64.length > 0) keys.push(['secret-base64-decoded', base64]);
  return keys;
}

/**
 * The bytes of standard or URL-safe base64, padded or not, as a lenient decoder (Node's `Buffer`)
 * reads them: a last character that completes no byte is dropped. Undefined when it is neither.
 */
function base64Bytes(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) return undefined;
  let standard = text.replace(/=+$/, '').replaceAll('-', '+').replaceAll('_', '/');
  if (standard.length % 4 === 1) standard = standard.slice(0, -1);
  try {
    const binary = atob(standard.padEnd(Math.ceil(standard.length / 4) * 4, '='));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

async function diagnoseMessageSignature(
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
  const differs = (
    explanation: string,
    component?: DiagnosedComponent,
    extra?: Partial<SignatureDiagnosis>,
  ): SignatureDiagnosis => ({
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
  return explainFailure(verdict.reason, {
    message,
    found,
    base,
    now,
    skew,
    options,
    differs,
    run,
  });
}

interface FailureContext {
  message: ReceivedMessage;
  found: LocatedMessageSignature | undefined;
  base: string | undefined;
  now: number;
  skew: number;
  options: DiagnoseSignatureOptions;
  differs: (
    explanation: string,
    component?: DiagnosedComponent,
    extra?: Partial<SignatureDiagnosis>,
  ) => SignatureDiagnosis;
  run: DiagnosisRun;
}

const compareBase =
  'signatureBase is the base this service computed from the request it received: compare it line by line with the one you signed.';

async function explainFailure(
  reason: MessageSignatureFailure,
  context: FailureContext,
): Promise<SignatureDiagnosis> {
  const { message, found, now, skew, options, differs } = context;
  const params = found?.innerList[1];
  switch (reason) {
    case 'malformed':
      return differs(
        `The message signature cannot be read: ${malformedPart(message, found).words}. Signature-Input and Signature are RFC 8941 dictionaries with a member of the same label each, the MAC a byte sequence (:base64:), and every covered component must be in the request.`,
        malformedPart(message, found).component,
      );
    case 'no-signature-for-key': {
      const keyIds = keyIdsOf(message);
      return differs(
        `No signature of Signature-Input has keyid="${options.publicKey}", the public key of the Authorization header.`,
        {
          name: 'keyid',
          problem: keyIds === '' ? 'missing' : 'mismatched',
          ...(keyIds === '' ? {} : { signed: keyIds }),
          computed: options.publicKey,
        },
      );
    }
    case 'unsupported-algorithm':
      return differs(`The message signature's alg must be "${MESSAGE_SIGNATURE_ALGORITHM}".`, {
        name: 'alg',
        problem: 'unsupported',
        signed: String(params?.get('alg')),
        computed: MESSAGE_SIGNATURE_ALGORITHM,
      });
    case 'missing-required-component': {
      const name = missingComponent(found, message.body.length > 0);
      return differs(
        `The message signature does not cover "${name}": it must cover "@method", "@path" (or "@target-uri") and, with a body, "content-digest". ${compareBase}`,
        { name, problem: 'missing' },
      );
    }
    case 'missing-created':
    case 'missing-nonce': {
      const name = reason === 'missing-created' ? 'created' : 'nonce';
      return differs(`The message signature has no ${name} parameter; it needs one.`, {
        name,
        problem: 'missing',
      });
    }
    case 'stale': {
      const created = Number(params?.get('created'));
      return differs(
        `The message signature's created (${created}) is ${Math.abs(now - created)} s ${created < now ? 'before' : 'after'} this service's clock (${now}); it must be within ${skew} s. Sign each request when you send it, with your clock set right (NTP).`,
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

/** Which part of a message signature cannot be read, in words and as a component. */
function malformedPart(
  message: ReceivedMessage,
  found: LocatedMessageSignature | undefined,
): { words: string; component: DiagnosedComponent } {
  for (const name of ['signature-input', 'signature']) {
    if (message.header(name) === undefined) {
      return { words: `${name} is missing`, component: { name, problem: 'missing' } };
    }
  }
  if (found === undefined) {
    return {
      words: 'Signature-Input or Signature is not a dictionary, or the MAC is not a byte sequence',
      component: { name: 'signature-input', problem: 'malformed' },
    };
  }
  for (const item of found.innerList[0]) {
    try {
      signatureBase(message, [[item], new Map()]);
    } catch {
      const [name] = item;
      const header = typeof name === 'string' && !name.startsWith('@') && item[1].size === 0;
      const component = typeof name === 'string' ? name : serializeItem(item);
      return header && message.header(component) === undefined
        ? {
            words: `it covers the field ${component}, which the request does not carry`,
            component: { name: component, problem: 'missing' },
          }
        : {
            words: `its component ${serializeItem(item)} cannot be derived (a parameter, or an unknown derived component)`,
            component: { name: component, problem: 'malformed' },
          };
    }
  }
  return {
    words: 'a component is covered twice',
    component: { name: 'signature-input', problem: 'malformed' },
  };
}

/** The `keyid`s of a request's signatures, comma-separated (its fields were read before). */
function keyIdsOf(message: ReceivedMessage): string {
  const ids: string[] = [];
  for (const [, member] of parseDictionary(message.header('signature-input') ?? '')) {
    const keyId = member[1].get('keyid');
    if (keyId !== undefined) ids.push(String(keyId));
  }
  return ids.join(', ');
}

/** The first required component a signature does not cover. */
function missingComponent(found: LocatedMessageSignature | undefined, hasBody: boolean): string {
  const covered = new Set(found?.innerList[0].map(([name]) => name));
  if (!covered.has('@method')) return '@method';
  if (!covered.has('@path') && !covered.has('@target-uri')) return '@path';
  return hasBody ? 'content-digest' : '@path';
}

async function contentDigestDiffers(context: FailureContext): Promise<SignatureDiagnosis> {
  const { message, differs, run } = context;
  const { crypto, spending } = run;
  const signed = message.header('content-digest') ?? '';
  const claims = parseContentDigest(signed);
  const algorithms: ContentDigestAlgorithm[] = claims ? [...claims.keys()] : ['sha-256'];
  const computed: string[] = [];
  for (const algorithm of algorithms) {
    computed.push(formatContentDigest(algorithm, await crypto.digest(algorithm, message.body)));
  }
  const component: DiagnosedComponent = {
    name: 'content-digest',
    problem: claims ? 'mismatched' : 'malformed',
    signed,
    computed: computed.join(', '),
  };
  // Of which bytes the claimed digest is, when they are the body written otherwise.
  const [algorithm, claimed] = claims ? ([...claims][0] ?? []) : [];
  let variant: BodyVariant | undefined;
  if (algorithm && claimed) {
    const claimedHex = bytesToHex(claimed);
    variant = await firstVariant(
      bodyVariants(message.body, spending),
      async (bytes) => bytesToHex(await crypto.digest(algorithm, bytes)) === claimedHex,
    );
  }
  if (variant) {
    const signedBody = { ...(await fingerprint(crypto, variant.bytes)), form: variant.form };
    return differs(
      `Content-Digest is the digest of the same JSON written otherwise (${variant.form}: ${signedBody.length} bytes), not of the ${message.body.length} bytes received. Digest and sign the exact bytes you send.`,
      component,
      { signedBody },
    );
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
  const mac = new Uint8Array(found.presented);
  const data = utf8.encode(base);
  const misused = await misusedKeyOf(options, 'SHA-256', mac, data, run);
  if (misused) {
    return {
      ...differs(
        `The message signature is the HMAC keyed with ${misusedKeyWords[misused]}. ${rightKey}`,
      ),
      cause: 'key-misused',
      key: misused,
    };
  }
  const secret = await crypto.macCheck(utf8.encode(options.secretKey), 'SHA-256');
  for (const candidate of baseCandidates(message, found, base)) {
    const bytes = utf8.encode(candidate.base);
    if (!spending.take(bytes.length)) break;
    if (await secret(mac, bytes)) {
      const { component, words } = candidate;
      if (component === undefined) {
        return differs(`The signature base you signed ${words}. ${compareBase}`);
      }
      const values =
        `${component.signed}${component.computed}`.length <= 400
          ? ` ("${component.signed}" where this service computed "${component.computed}")`
          : '';
      return differs(
        `The message signature verifies with another ${component.name} than the one of the request received${values}: sign the request exactly as you send it. ${compareBase}`,
        component,
      );
    }
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

/** A base a signer may have signed instead: one component's value replaced, or its form. */
interface BaseCandidate {
  base: string;
  component?: DiagnosedComponent;
  words?: string;
}

/**
 * The bases a signer often signs by mistake: a derived component with another value (the method
 * in lowercase, `@path` with the query or as the whole URL, a trailing slash, a path prefix a
 * proxy added, the other scheme, the host without its port…), the `Signature-Input` member as
 * sent rather than re-serialized, a final newline or CRLF line ends.
 */
function* baseCandidates(
  message: ReceivedMessage,
  found: LocatedMessageSignature,
  base: string,
): Generator<BaseCandidate> {
  const lines = base.split('\n');
  for (const item of found.innerList[0]) {
    const [name] = item;
    if (typeof name !== 'string' || item[1].size > 0) continue;
    const prefix = `${serializeItem(item)}: `;
    const index = lines.findIndex((line) => line.startsWith(prefix));
    const computed = lines[index]?.slice(prefix.length);
    if (computed === undefined) continue;
    for (const signed of new Set(alternativeValues(name, computed, message))) {
      if (signed === computed) continue;
      const replaced = [...lines];
      replaced[index] = prefix + signed;
      yield {
        base: replaced.join('\n'),
        component: { name, problem: 'mismatched', signed, computed },
      };
    }
  }
  const inputField = message.header('signature-input') ?? '';
  const sentParams = inputField.startsWith(`${found.label}=`)
    ? inputField.slice(found.label.length + 1)
    : undefined;
  const canonical = serializeInnerList(found.innerList);
  if (sentParams !== undefined && sentParams !== canonical) {
    yield {
      base: [...lines.slice(0, -1), `"@signature-params": ${sentParams}`].join('\n'),
      component: {
        name: '@signature-params',
        problem: 'mismatched',
        signed: sentParams,
        computed: canonical,
      },
    };
  }
  yield {
    base: `${base}\n`,
    words: 'ends with a newline; the last line, @signature-params, has none',
  };
  yield { base: base.replaceAll('\n', '\r\n'), words: 'has CRLF line ends; they are LF alone' };
  yield {
    base: `${base.replaceAll('\n', '\r\n')}\r\n`,
    words: 'has CRLF line ends and a final one; they are LF alone, none after the last line',
  };
}

/** Values of a derived component that signers use by mistake, from the one computed. */
function alternativeValues(name: string, computed: string, message: ReceivedMessage): string[] {
  const url = typeof message.url === 'string' ? new URL(message.url) : message.url;
  const otherScheme = url.protocol === 'https:' ? 'http' : 'https';
  const hostname = url.host.replace(/:\d+$/, '');
  const port = url.host.slice(hostname.length);
  const swapLoopback = (host: string) =>
    host.startsWith('localhost')
      ? host.replace('localhost', '127.0.0.1')
      : host.startsWith('127.0.0.1')
        ? host.replace('127.0.0.1', 'localhost')
        : host;
  switch (name) {
    case '@method':
      return [computed.toLowerCase(), ...['POST', 'PUT', 'PATCH', 'GET', 'DELETE']];
    case '@path': {
      const segments = computed.split('/');
      const suffixes = segments.slice(2).map((_, i) => `/${segments.slice(i + 2).join('/')}`);
      return [
        computed + url.search,
        url.href,
        computed.endsWith('/') ? computed.slice(0, -1) : `${computed}/`,
        safeDecode(computed),
        ...suffixes,
      ];
    }
    case '@target-uri':
      return [
        `${otherScheme}://${url.host}${url.pathname}${url.search}`,
        `${url.protocol}//${url.host}${url.pathname}`,
        `${url.protocol}//${swapLoopback(url.host)}${url.pathname}${url.search}`,
        `${url.protocol}//${hostname}${url.pathname}${url.search}`,
        url.pathname + url.search,
      ];
    case '@authority':
      return [hostname, swapLoopback(computed), ...(port === '' ? [] : [`${hostname}${port}`])];
    case '@scheme':
      return [otherScheme];
    case '@query':
      return ['', computed.replace(/^\?/, '')];
    case '@request-target':
      return [url.pathname, url.href];
    default:
      return [];
  }
}

function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** The signature base of a located signature, or undefined when a component cannot be derived. */
function baseOf(message: ReceivedMessage, found: LocatedMessageSignature): string | undefined {
  try {
    return signatureBase(message, found.innerList);
  } catch {
    return undefined;
  }
}

/** The first variant `matches`; every one is tried until then, in order. */
async function firstVariant(
  variants: Iterable<BodyVariant>,
  matches: (bytes: Uint8Array<ArrayBuffer>) => Promise<boolean>,
): Promise<BodyVariant | undefined> {
  for (const variant of variants) {
    if (await matches(variant.bytes)) return variant;
  }
  return undefined;
}

/** The length and SHA-256 (hex) of `bytes`. */
export function bodyFingerprint(bytes: Uint8Array): Promise<BodyFingerprint> {
  return fingerprint(webDiagnosisCrypto, bytes);
}

async function fingerprint(crypto: DiagnosisCrypto, bytes: Uint8Array): Promise<BodyFingerprint> {
  return { length: bytes.length, sha256: bytesToHex(await crypto.digest('sha-256', bytes)) };
}
