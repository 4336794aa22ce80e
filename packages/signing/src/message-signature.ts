/**
 * RFC 9421 HTTP Message Signatures, `alg="hmac-sha256"`, as the spec's security scheme
 * `MessageSignature` and its Assumptions ("Message signatures") describe them: the runtime-free
 * part (the signature base, the structured fields, the rules a signature must meet). The
 * cryptography is done by `message-signature-node.ts` (node:crypto) and
 * `message-signature-web.ts` (Web Crypto), which share everything here, so both produce and
 * accept exactly the same headers.
 *
 * `Signature-Input`, `Signature` and `Content-Digest` are RFC 8941/9651 dictionaries: they are
 * parsed by `structured-headers`, never by a regular expression, and serialized by it or, for the
 * values every signature has, as it serializes them (canonical-fields.ts).
 *
 * @module
 */
import {
  type BareItem,
  type InnerList,
  type Item,
  type Parameters,
  parseDictionary,
  serializeDictionary,
  serializeInnerList,
  serializeItem,
} from 'structured-headers';
import { innerListText, itemText } from './canonical-fields.js';
import { bytesToBase64, bytesToHex } from './encoding.js';
import type { TargetUri } from './request-target.js';

/** The only algorithm accepted (RFC 9421 §3.3.3), keyed with the secret key's UTF-8 bytes. */
export const MESSAGE_SIGNATURE_ALGORITHM = 'hmac-sha256';

/** The label a signature gets unless told otherwise. Verifiers accept any label. */
export const DEFAULT_SIGNATURE_LABEL = 'sig1';

/** How far `created` may be from the verifier's clock, in seconds (spec: "Message signatures"). */
export const DEFAULT_MAX_SKEW_SECONDS = 300;

/** The Content-Digest algorithms of RFC 9530 that are produced and checked. */
export type ContentDigestAlgorithm = 'sha-256' | 'sha-512';

/** A request about to be sent. */
export interface MessageToSign {
  /** `POST`, `PUT`, … as sent. */
  method: string;
  /** The absolute target URI the request is sent to (`@path`, `@authority`… derive from it). */
  url: string | URL;
  /**
   * The exact bytes of the body as sent (a string is UTF-8 encoded). When given, a
   * `Content-Digest` of them is made and covered.
   */
  body?: string | Uint8Array | undefined;
  /** Other header fields, for signatures that cover them (lowercase names). */
  headers?: Readonly<Record<string, string>> | undefined;
}

/** What a signature is made with. */
export interface MessageSignatureOptions {
  /** The public key of the `Authorization` header; sent as `keyid`. */
  keyId: string;
  /**
   * The HMAC key: the secret key as a string (its UTF-8 bytes are the key, as for the
   * `Authorization` header), or raw key bytes (as in RFC 9421's own examples).
   */
  secretKey: string | Uint8Array;
  /** UNIX seconds; the current time when omitted. */
  created?: number | undefined;
  /** UNIX seconds after which the signature is refused; none when omitted. */
  expires?: number | undefined;
  /** Unique per request; when omitted, a new one that sorts after the last (see randomNonce). */
  nonce?: string | undefined;
  /** The dictionary key of the signature; `sig1` when omitted. */
  label?: string | undefined;
  /** `sha-256` (default) or `sha-512`. */
  digest?: ContentDigestAlgorithm | undefined;
  /**
   * Covered components; `"@method" "@path" "content-digest"` when omitted (without
   * `content-digest` for a request without a body).
   */
  components?: readonly string[] | undefined;
}

/** The fields to add to the request, with lowercase names. */
export interface MessageSignatureHeaders {
  /** Present when the request has a body. */
  'content-digest'?: string;
  'signature-input': string;
  signature: string;
}

/** A request as received, for verification. */
export interface ReceivedMessage {
  method: string;
  /**
   * The target URI the request is routed by (request-target.ts, `routedTarget`): its components are the
   * derived components. A string is parsed, and normalized, as a WHATWG URL.
   */
  url: string | TargetUri;
  /** A field's value by lowercase name (repeated fields joined with `, `), or undefined. */
  header: (name: string) => string | undefined;
  /** The exact bytes received; empty when there is no body. */
  body: Uint8Array;
}

/** What a message signature is checked against. */
export interface VerifyMessageSignatureOptions {
  /** The public key of the request's `Authorization` header: the `keyid` looked for. */
  keyId: string;
  /** That key pair's secret key (UTF-8 bytes), or raw key bytes. */
  secretKey: string | Uint8Array;
  /** UNIX seconds; the current time when omitted. */
  now?: number | undefined;
  /** How far `created` may be from `now`; {@link DEFAULT_MAX_SKEW_SECONDS} when omitted. */
  maxSkewSeconds?: number | undefined;
}

/** Why a present message signature was refused (logged, never answered: every refusal is one 401). */
export type MessageSignatureFailure =
  | 'malformed'
  | 'no-signature-for-key'
  | 'unsupported-algorithm'
  | 'missing-required-component'
  | 'missing-created'
  | 'missing-nonce'
  | 'stale'
  | 'expired'
  | 'content-digest-mismatch'
  | 'wrong-signature';

/** The outcome of checking a request's message signature. */
export type MessageSignatureVerdict =
  | { status: 'absent' }
  | {
      status: 'valid';
      label: string;
      nonce: string;
      created: number;
      expires?: number;
    }
  | { status: 'invalid'; reason: MessageSignatureFailure };

/** The signature base and headers of a signature, short of its MAC. */
export interface SignaturePlan {
  label: string;
  /** The `Signature-Input` member's value, also the `@signature-params` line's. */
  signatureParams: string;
  /** The exact text the HMAC covers (RFC 9421 §2.5). */
  base: string;
  contentDigest: string | undefined;
}

/** A received signature ready for its MAC check. */
export interface SignatureToCheck {
  label: string;
  base: string;
  /** The presented MAC. */
  mac: Uint8Array;
  nonce: string;
  created: number;
  expires: number | undefined;
  /** `Content-Digest` to check against the body, when covered or when there is a body. */
  contentDigest: string | undefined;
}

/** Hash names of the Content-Digest algorithms, as node:crypto and Web Crypto spell them. */
export const CONTENT_DIGEST_HASH = Object.freeze({
  'sha-256': { node: 'sha256', web: 'SHA-256' },
  'sha-512': { node: 'sha512', web: 'SHA-512' },
} as const);

class UnusableComponent extends Error {}

const utf8 = new TextEncoder();

/** A string is the key's UTF-8 bytes; bytes are the key itself. */
export function hmacKeyBytes(secretKey: string | Uint8Array): Uint8Array<ArrayBuffer> {
  if (typeof secretKey === 'string') {
    if (secretKey.length === 0) throw new TypeError('secretKey must be a non-empty string');
    return utf8.encode(secretKey);
  }
  if (!(secretKey instanceof Uint8Array) || secretKey.length === 0) {
    throw new TypeError('secretKey must be a non-empty string or Uint8Array');
  }
  return new Uint8Array(secretKey);
}

/** The body's bytes (a string is UTF-8 encoded), or undefined for a request without one. */
export function bodyBytes(body: string | Uint8Array | undefined): Uint8Array | undefined {
  return typeof body === 'string' ? utf8.encode(body) : body;
}

/**
 * `sha-256=:<base64>:` (RFC 9530 §2): a dictionary of one byte sequence, written as
 * `structured-headers` writes it (padded standard base64), without building the dictionary;
 * `digest` as bytes, or already in that base64.
 */
export function formatContentDigest(
  algorithm: ContentDigestAlgorithm,
  digest: Uint8Array | string,
): string {
  return `${algorithm}=:${typeof digest === 'string' ? digest : bytesToBase64(digest)}:`;
}

/**
 * The digests a `Content-Digest` field claims, by supported algorithm; undefined when it is not
 * a dictionary of byte sequences or names no algorithm this side supports.
 */
export function parseContentDigest(
  value: string,
): Map<ContentDigestAlgorithm, Uint8Array> | undefined {
  let dictionary: ReturnType<typeof parseDictionary>;
  try {
    dictionary = parseDictionary(value);
  } catch {
    return undefined;
  }
  const claims = new Map<ContentDigestAlgorithm, Uint8Array>();
  for (const [name, member] of dictionary) {
    if (name !== 'sha-256' && name !== 'sha-512') continue;
    const item = member[0];
    if (!(item instanceof ArrayBuffer)) return undefined;
    claims.set(name, new Uint8Array(item));
  }
  return claims.size === 0 ? undefined : claims;
}

/**
 * Random bytes for nonces, drawn 4 KiB at a time and kept as hex digits: one `getRandomValues`
 * call costs more on Node than the rest of a signature, so each call serves 409 nonces (Node's
 * own `randomUUID` buffers its entropy the same way). Every byte is used once.
 */
let noncePool = '';
let noncePoolOffset = 0;
const nonceRandomBytes = 10;
/** The milliseconds of the last nonce, and their 12 hex digits. */
let nonceTime = 0;
let nonceTimeHex = '';

/**
 * A new signature's nonce: 32 lowercase hex digits, the first 12 the milliseconds since the epoch
 * and the other 20 random (80 bits), so that the nonces a signer makes sort, as text, in the order
 * it made them (as a UUIDv7 does, RFC 9562 §5.7). A verifier keeps the nonces of the last minutes
 * in an index per key pair; a new one then lands at the index's end, on the page of the one
 * before, where a random one lands on a page of its own that the database writes out again: on
 * the reference server's embedded database, 4% less CPU per create signed both ways, and a
 * fifth to a half of the cost of recording a nonce as the index grows (bench/logs/reference-server.md,
 * "The nonce recorded by the request's own write, and nonces in time order"). Unique with 80
 * random bits per millisecond; a verifier needs nothing of its form.
 */
export function randomNonce(): string {
  if (noncePoolOffset + nonceRandomBytes * 2 > noncePool.length) {
    // In hex at once: one pass over the pool instead of one small one per nonce.
    noncePool = bytesToHex(globalThis.crypto.getRandomValues(new Uint8Array(4090)));
    noncePoolOffset = 0;
  }
  const random = noncePool.slice(noncePoolOffset, noncePoolOffset + nonceRandomBytes * 2);
  noncePoolOffset += nonceRandomBytes * 2;
  const now = Date.now();
  if (now !== nonceTime) {
    nonceTime = now;
    nonceTimeHex = now.toString(16).padStart(12, '0');
  }
  return nonceTimeHex + random;
}

function componentValue(
  item: Item,
  url: TargetUri,
  method: string,
  header: (name: string) => string | undefined,
): string {
  const [name, params] = item;
  // Parameters (`;sf`, `;key`, `;bs`, `;req`, `;tr`) change what a component means; none is
  // needed for this API, and accepting one without applying it would sign the wrong bytes.
  if (typeof name !== 'string' || params.size > 0) throw new UnusableComponent();
  switch (name) {
    case '@method':
      return method;
    case '@target-uri':
      return url.href;
    case '@authority':
      return url.host;
    case '@scheme':
      return url.protocol.slice(0, -1);
    case '@request-target':
      return url.pathname + url.search;
    case '@path':
      return url.pathname;
    case '@query':
      return url.search === '' ? '?' : url.search;
    default: {
      if (name.startsWith('@') || name !== name.toLowerCase()) throw new UnusableComponent();
      const value = header(name);
      if (value === undefined) throw new UnusableComponent();
      return value.trim();
    }
  }
}

/**
 * The signature base of RFC 9421 §2.5: one line per covered component, then the
 * `@signature-params` line, joined by LF with none at the end. `innerList` is the member of
 * `Signature-Input` (its components and parameters), re-serialized canonically as the RFC
 * requires. Throws for a component this side cannot derive (a missing field, an unknown
 * derived component or a component parameter).
 */
export function signatureBase(
  message: Pick<ReceivedMessage, 'method' | 'url' | 'header'>,
  innerList: InnerList,
): string {
  return `${componentLines(message, innerList)}"@signature-params": ${innerListText(innerList)}`;
}

/** The lines of the signature base before `@signature-params`, each ending with LF. */
function componentLines(
  message: Pick<ReceivedMessage, 'method' | 'url' | 'header'>,
  innerList: InnerList,
): string {
  const url = typeof message.url === 'string' ? new URL(message.url) : message.url;
  const seen = new Set<string>();
  let base = '';
  for (const item of innerList[0]) {
    const identifier = itemText(item);
    if (seen.has(identifier)) throw new UnusableComponent();
    seen.add(identifier);
    base += `${identifier}: ${componentValue(item, url, message.method, message.header)}\n`;
  }
  return base;
}

/**
 * The signature base for a `Signature-Input` field value and one of its labels, as any verifier
 * computes it; throws when the label is missing or a component cannot be derived. Exposed for
 * implementers checking their own base against this one (and RFC 9421's examples).
 */
export function signatureBaseFor(
  message: Pick<ReceivedMessage, 'method' | 'url' | 'header'>,
  signatureInput: string,
  label: string,
): string {
  const member = parseDictionary(signatureInput).get(label);
  if (member === undefined || !Array.isArray(member[0])) {
    throw new RangeError(`Signature-Input has no inner list labelled ${label}`);
  }
  return signatureBase(message, member as InnerList);
}

/** Everything of a signature but the MAC; `contentDigest` is the body's, when it has one. */
export function planMessageSignature(
  message: MessageToSign,
  options: MessageSignatureOptions,
  contentDigest: string | undefined,
): SignaturePlan {
  const { keyId, label = DEFAULT_SIGNATURE_LABEL } = options;
  if (typeof keyId !== 'string' || keyId.length === 0) {
    throw new TypeError('keyId must be a non-empty string');
  }
  const components =
    options.components ??
    (contentDigest === undefined ? ['@method', '@path'] : ['@method', '@path', 'content-digest']);
  const params: Parameters = new Map<string, BareItem>([
    ['created', options.created ?? Math.floor(Date.now() / 1000)],
  ]);
  if (options.expires !== undefined) params.set('expires', options.expires);
  params.set('nonce', options.nonce ?? randomNonce());
  params.set('keyid', keyId);
  params.set('alg', MESSAGE_SIGNATURE_ALGORITHM);
  const innerList: InnerList = [components.map((name) => [name, new Map()]), params];
  const headers = { ...message.headers };
  if (contentDigest !== undefined) headers['content-digest'] = contentDigest;
  // Serialized once, for the base's last line and for Signature-Input.
  const signatureParams = serializeInnerList(innerList);
  let base: string;
  try {
    base = `${componentLines(
      { method: message.method, url: message.url, header: (name) => headers[name] },
      innerList,
    )}"@signature-params": ${signatureParams}`;
  } catch (error) {
    if (error instanceof UnusableComponent) {
      throw new RangeError(
        'A covered component cannot be signed: give its header, or cover no parameters',
      );
    }
    throw error;
  }
  return { label, signatureParams, base, contentDigest };
}

/** Makes the plan of each request signed with one set of options. */
export type SignaturePlanner = (
  message: MessageToSign,
  contentDigest: string | undefined,
) => SignaturePlan;

/**
 * A {@link SignaturePlanner} for options that stay the same from request to request (a signer's:
 * all but `created`, `expires` and `nonce`), giving the plans {@link planMessageSignature}
 * gives. With the default components, what is the same for every request (the component lines'
 * names, the covered components, `keyid` and `alg`) is serialized here once, by
 * `structured-headers`, and each request fills in its method, path and digest, `created` (an
 * integer) and a new nonce (hex digits, a string needing no escapes): a profile of
 * the client showed the general path's serialization, and its garbage, at four times the cost of
 * the two hashes. Other options take the general path.
 */
export function prepareSignaturePlanner(options: MessageSignatureOptions): SignaturePlanner {
  const { keyId, label = DEFAULT_SIGNATURE_LABEL } = options;
  if (
    options.components !== undefined ||
    options.created !== undefined ||
    options.expires !== undefined ||
    options.nonce !== undefined
  ) {
    return (message, contentDigest) => planMessageSignature(message, options, contentDigest);
  }
  // The label as a dictionary key (throws for one that is not a valid key).
  serializeDictionary(new Map([[label, [true, new Map()]]]));
  const fixed = (components: string[]) => {
    const items: Item[] = components.map((name) => [name, new Map()]);
    return {
      names: items.map((item) => `${serializeItem(item)}: `),
      covered: serializeInnerList([items, new Map()]),
    };
  };
  const withBody = fixed(['@method', '@path', 'content-digest']);
  const withoutBody = fixed(['@method', '@path']);
  // `();keyid="…";alg="hmac-sha256"` without its empty list: the parameters after the nonce.
  const keyParams = serializeInnerList([
    [],
    new Map<string, BareItem>([
      ['keyid', keyId],
      ['alg', MESSAGE_SIGNATURE_ALGORITHM],
    ]),
  ]).slice(2);
  // A client sends to one URL again and again (every create): its path is parsed once.
  let lastUrl: string | undefined;
  let lastPath = '';
  const pathOf = (url: string | URL) => {
    if (typeof url !== 'string') return url.pathname;
    if (url !== lastUrl) {
      lastPath = new URL(url).pathname;
      lastUrl = url;
    }
    return lastPath;
  };
  return (message, contentDigest) => {
    const path = pathOf(message.url);
    const created = Math.floor(Date.now() / 1000);
    const { names, covered } = contentDigest === undefined ? withoutBody : withBody;
    const signatureParams = `${covered};created=${created};nonce="${randomNonce()}"${keyParams}`;
    let base = `${names[0]}${message.method}\n${names[1]}${path}\n`;
    if (contentDigest !== undefined) base += `${names[2]}${contentDigest}\n`;
    base += `"@signature-params": ${signatureParams}`;
    return { label, signatureParams, base, contentDigest };
  };
}

/**
 * The headers of a planned signature once its MAC is computed: `mac` as bytes, or already in
 * padded standard base64 (node:crypto's `digest('base64')`, which spares a copy into a Buffer).
 */
export function finishMessageSignature(
  plan: SignaturePlan,
  mac: Uint8Array | string,
): MessageSignatureHeaders {
  const headers: MessageSignatureHeaders = {
    'signature-input': `${plan.label}=${plan.signatureParams}`,
    // A dictionary of one byte sequence, as `structured-headers` writes it.
    signature: `${plan.label}=:${typeof mac === 'string' ? mac : bytesToBase64(mac)}:`,
  };
  if (plan.contentDigest !== undefined) headers['content-digest'] = plan.contentDigest;
  return headers;
}

/** A request's signature for one key, as its fields say it, before any rule is checked. */
export interface LocatedMessageSignature {
  status: 'found';
  /** Its member's key in `Signature-Input` and `Signature`. */
  label: string;
  /** Its member of `Signature-Input`: the covered components and the parameters. */
  innerList: InnerList;
  /** Its member of `Signature`: the presented MAC. */
  presented: ArrayBuffer;
}

/**
 * Finds the signature a request carries for `keyId` (RFC 9421 §3.2: other parties, a gateway
 * say, may add signatures of their own, under any label): `absent` when the request has neither
 * field, `malformed` when one is missing or is not a dictionary, or when its MAC is not a byte
 * sequence, `no-signature-for-key` when no member's `keyid` is the key.
 */
export function locateMessageSignature(
  message: Pick<ReceivedMessage, 'header'>,
  keyId: string,
):
  | { status: 'absent' }
  | { status: 'invalid'; reason: 'malformed' | 'no-signature-for-key' }
  | LocatedMessageSignature {
  const inputField = message.header('signature-input');
  const signatureField = message.header('signature');
  if (inputField === undefined && signatureField === undefined) return { status: 'absent' };
  const malformed = { status: 'invalid' as const, reason: 'malformed' as const };
  if (inputField === undefined || signatureField === undefined) return malformed;
  let inputs: ReturnType<typeof parseDictionary>;
  let signatures: ReturnType<typeof parseDictionary>;
  try {
    inputs = parseDictionary(inputField);
    signatures = parseDictionary(signatureField);
  } catch {
    return malformed;
  }
  for (const [label, member] of inputs) {
    if (Array.isArray(member[0]) && member[1].get('keyid') === keyId) {
      const presented = signatures.get(label)?.[0];
      if (!(presented instanceof ArrayBuffer)) return malformed;
      return { status: 'found', label, innerList: member as InnerList, presented };
    }
  }
  return { status: 'invalid', reason: 'no-signature-for-key' };
}

/** What a request's message signature for one key says, before any rule is checked. */
export interface MessageSignatureDescription {
  /** Its label in `Signature-Input` and `Signature`. */
  label: string;
  /** The covered components as `Signature-Input` writes them (`"@method"`, `"content-digest"`). */
  components: string[];
  /** Its parameters (`created`, `expires`, `nonce`, `keyid`, `alg`…), as sent. */
  parameters: Record<string, string | number | boolean>;
}

/**
 * The message signature a request carries for `keyId`, as its `Signature-Input` says it, for a
 * person or a tool to show (the CLI's `doctor`); undefined when there is none for the key or the
 * fields cannot be read. Says nothing of its validity: verify it.
 */
export function describeMessageSignature(
  message: Pick<ReceivedMessage, 'header'>,
  keyId: string,
): MessageSignatureDescription | undefined {
  const located = locateMessageSignature(message, keyId);
  if (located.status !== 'found') return undefined;
  const parameters: Record<string, string | number | boolean> = {};
  for (const [name, value] of located.innerList[1]) {
    parameters[name] = typeof value === 'object' ? String(value) : value;
  }
  return {
    label: located.label,
    components: located.innerList[0].map((item) => serializeItem(item)),
    parameters,
  };
}

/**
 * Reads the signature a request carries for `keyId` and checks every rule that needs no key:
 * the covered components (`@method`, `@path` or `@target-uri`, and `content-digest` when there
 * is a body), `alg`, `created` within the skew, `expires`, a `nonce`. The MAC and the
 * Content-Digest are checked by the caller, with its cryptography.
 */
export function readMessageSignature(
  message: ReceivedMessage,
  options: VerifyMessageSignatureOptions,
):
  | { status: 'absent' }
  | { status: 'invalid'; reason: MessageSignatureFailure }
  | ({ status: 'ready' } & SignatureToCheck) {
  const located = locateMessageSignature(message, options.keyId);
  if (located.status !== 'found') return located;
  const { label, innerList, presented } = located;
  const invalid = (reason: MessageSignatureFailure) => ({ status: 'invalid' as const, reason });
  const params = innerList[1];
  const alg = params.get('alg');
  if (alg !== undefined && alg !== MESSAGE_SIGNATURE_ALGORITHM) {
    return invalid('unsupported-algorithm');
  }
  let methodCovered = false;
  let pathCovered = false;
  let digestCovered = false;
  for (const [name] of innerList[0]) {
    if (name === '@method') methodCovered = true;
    else if (name === '@path' || name === '@target-uri') pathCovered = true;
    else if (name === 'content-digest') digestCovered = true;
  }
  if (!methodCovered || !pathCovered || (message.body.length > 0 && !digestCovered)) {
    return invalid('missing-required-component');
  }
  const created = params.get('created');
  if (typeof created !== 'number' || !Number.isInteger(created)) return invalid('missing-created');
  const nonce = params.get('nonce');
  if (typeof nonce !== 'string' || nonce.length === 0) return invalid('missing-nonce');
  const now = options.now ?? Math.floor(Date.now() / 1000);
  const skew = options.maxSkewSeconds ?? DEFAULT_MAX_SKEW_SECONDS;
  if (Math.abs(now - created) > skew) return invalid('stale');
  const expires = params.get('expires');
  if (expires !== undefined && (typeof expires !== 'number' || expires <= now)) {
    return invalid('expired');
  }
  let base: string;
  try {
    base = signatureBase(message, innerList);
  } catch (error) {
    if (error instanceof UnusableComponent || error instanceof TypeError) {
      return invalid('malformed');
    }
    throw error;
  }
  return {
    status: 'ready',
    label,
    base,
    mac: new Uint8Array(presented),
    nonce,
    created,
    expires,
    contentDigest: digestCovered ? (message.header('content-digest') ?? '') : undefined,
  };
}

/** The verdict once the MAC (and the Content-Digest, when covered) have been checked. */
export function verdictOf(
  read: SignatureToCheck,
  digestMatches: boolean,
  macMatches: boolean,
): MessageSignatureVerdict {
  if (!digestMatches) return { status: 'invalid', reason: 'content-digest-mismatch' };
  if (!macMatches) return { status: 'invalid', reason: 'wrong-signature' };
  const { label, nonce, created, expires } = read;
  return expires === undefined
    ? { status: 'valid', label, nonce, created }
    : { status: 'valid', label, nonce, created, expires };
}

/**
 * The longest nonce a verifier records. RFC 9421 sets no bound; the signing libraries send 22
 * characters (a time and 80 random bits, in hex). A longer one is refused rather than stored.
 */
export const MAX_NONCE_LENGTH = 256;

/** Why a verifier refuses a request on its message signature, once the verdict is in. */
export type MessageSignatureRefusal = MessageSignatureFailure | 'missing' | 'nonce-too-long';

/** What a verifier does next with a request whose `Authorization` header verified. */
export type MessageSignatureDecision =
  | { action: 'accept' }
  | { action: 'refuse'; reason: MessageSignatureRefusal }
  /** Accept only if `nonce` was not used with this key pair before (until `expiresAt`, ms). */
  | { action: 'claim-nonce'; nonce: string; expiresAt: number };

/**
 * The key pair's policy applied to a verdict, as the spec's `MessageSignature` scheme states it,
 * so that every verifier (the reference server, the mock) decides alike:
 * - none at all: accepted unless the pair requires message signatures;
 * - present but invalid: refused, whatever the policy;
 * - valid: accepted once its nonce is claimed, which a verifier must remember until the signature
 *   is stale: the end of second `created + maxSkewSeconds`.
 */
export function decideMessageSignature(
  verdict: MessageSignatureVerdict,
  required: boolean,
  maxSkewSeconds: number = DEFAULT_MAX_SKEW_SECONDS,
): MessageSignatureDecision {
  if (verdict.status === 'absent') {
    return required ? { action: 'refuse', reason: 'missing' } : { action: 'accept' };
  }
  if (verdict.status === 'invalid') return { action: 'refuse', reason: verdict.reason };
  if (verdict.nonce.length > MAX_NONCE_LENGTH) {
    return { action: 'refuse', reason: 'nonce-too-long' };
  }
  return {
    action: 'claim-nonce',
    nonce: verdict.nonce,
    expiresAt: (verdict.created + maxSkewSeconds + 1) * 1000,
  };
}
