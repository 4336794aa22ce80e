/**
 * An `Authorization` header that is not `<publicKey>:<signature>` as the service reads it
 * ("Authentication" section of the spec), read the way its sender meant it: a scheme word before
 * the key (`HMAC`, `Bearer`), Basic credentials (the base64 of `<publicKey>:<signature>`), spaces
 * around the colon, a prefix before the signature (`sha256=`, as webhooks write theirs), quotes,
 * or the signature in another encoding (uppercase hex, base64, hex missing a leading zero). A
 * sandbox finds the key pair with {@link presentedPublicKey}, and a diagnosis says what is wrong
 * with the form, naming only words it knows (a scheme, a prefix), never a value of the request
 * that could be a secret.
 *
 * @module
 */
import { DIGEST_BYTES, type SignatureOptions } from './algorithms.js';
import { bytesToBase64, bytesToHex } from './encoding.js';
import { base64Bytes } from './misused-keys.js';

/** Scheme words signers put before the key, shown as sent when they are one of these. */
const knownSchemes = new Set([
  'hmac',
  'hmac-sha256',
  'hmac-sha512',
  'hmacsha256',
  'bearer',
  'signature',
  'token',
  'apikey',
  'api-key',
  'key',
  'digest',
  'sharedkey',
  'hmac256',
]);

/** Prefixes signers write before a signature, shown as sent when they are one of these. */
const knownPrefixes =
  /^(?:sha256|sha-256|sha512|sha-512|hmac-sha256|hmac-sha512|hmac|v0|v1|sig|signature)=$/i;

/** A header's form, read as its sender meant it. */
export interface AuthorizationReading {
  /** The public key it names, when it names one. */
  publicKey: string | undefined;
  /**
   * The signature written as the service reads it (the options' encoding), once the form's
   * mistake is undone; undefined when it cannot be.
   */
  signature: string | undefined;
  /** What is wrong with the form, in words, with what to write instead. */
  problem: string;
  /** A MAC of another hash's length (HMAC-SHA512, HMAC-SHA1, MD5), to check as such. */
  otherHash?: { hash: 'SHA-512' | 'SHA-1' | 'MD5'; mac: Uint8Array };
}

const visibleKey = /^[\x21-\x39\x3b-\x7e]+$/;

/**
 * A key named as a parameter (`keyId="…"` of the older HTTP Signatures draft, `Credential=…` of
 * AWS's scheme), when the header is one of those.
 */
function parameterKey(header: string): string | undefined {
  return (
    /\bkeyId\s*=\s*"([^"]+)"/i.exec(header)?.[1] ??
    /\bCredential\s*=\s*([^,\s/]+)/.exec(header)?.[1]
  );
}

/** The header with a scheme word or Basic credentials undone: the key-and-signature part. */
function credentialsPart(header: string): { inner: string; scheme?: string; basic?: boolean } {
  const trimmedHeader = header.trim();
  const basic = /^basic\s+([A-Za-z0-9+/_-]+={0,2})$/i.exec(trimmedHeader);
  if (basic?.[1]) {
    const bytes = base64Bytes(basic[1]);
    const decoded = bytes ? new TextDecoder().decode(bytes) : '';
    if (decoded.includes(':')) return { inner: decoded, basic: true };
  }
  const scheme = /^([A-Za-z][A-Za-z0-9._~+/-]*)\s+(\S.*)$/s.exec(trimmedHeader);
  if (scheme?.[1] && scheme[2]?.includes(':')) return { inner: scheme[2], scheme: scheme[1] };
  return { inner: trimmedHeader };
}

/**
 * The public key an `Authorization` header names, read as its sender meant it: after a scheme
 * word, inside Basic credentials, without spaces around it. Undefined when it names none. What a
 * sandbox looks a key pair up by when the header is malformed; the key is never repeated back
 * unless it is a known one.
 */
export function presentedPublicKey(header: string | null | undefined): string | undefined {
  if (typeof header !== 'string') return undefined;
  const parameter = parameterKey(header);
  if (parameter !== undefined) return visibleKey.test(parameter) ? parameter : undefined;
  const { inner } = credentialsPart(header);
  const colon = inner.indexOf(':');
  if (colon <= 0) return otherSeparator(inner)?.publicKey;
  const key = inner.slice(0, colon).trim();
  return visibleKey.test(key) ? key : undefined;
}

/**
 * What is wrong with the form of `header`, which `parseAuthorization` refused, as its sender
 * meant it, and the signature it carries written as the service reads it when that can be done.
 */
export function readMalformedAuthorization(
  header: string,
  options: Required<SignatureOptions>,
): AuthorizationReading {
  const problems: string[] = [];
  if (parameterKey(header) !== undefined) {
    return {
      publicKey: presentedPublicKey(header),
      signature: undefined,
      problem:
        'The Authorization header names the key as a parameter (keyId="…", Credential=…), as the older HTTP Signatures draft and other schemes do: this service reads Authorization: <publicKey>:<signature>, the HMAC of the body, and an RFC 9421 message signature in the Signature-Input and Signature fields.',
    };
  }
  const { inner, scheme, basic } = credentialsPart(header);
  if (basic) {
    problems.push(
      'The Authorization header is Basic credentials, the base64 of <publicKey>:<signature>: send <publicKey>:<signature> itself, not in base64, with no scheme word.',
    );
  } else if (scheme) {
    const word = knownSchemes.has(scheme.toLowerCase()) ? `"${scheme}"` : 'a word (not shown)';
    problems.push(
      `The Authorization header has the scheme word ${word} before the public key: this service reads Authorization: <publicKey>:<signature>, with no scheme word (no HMAC, Bearer or Basic).`,
    );
  }
  if (header !== header.trim() && !basic && !scheme) {
    problems.push('The Authorization header has spaces around its value: remove them.');
  }
  const colon = inner.indexOf(':');
  const publicKey = presentedPublicKey(header);
  const separated = colon <= 0 ? otherSeparator(inner) : undefined;
  if (separated) {
    problems.push(
      `The Authorization header has ${separated.words} between the public key and the signature: write a colon, <publicKey>:<signature>.`,
    );
    const encoded = reencode(separated.signature, options);
    if (encoded.problem) problems.push(encoded.problem);
    return { publicKey, signature: encoded.signature, problem: problems.join(' ') };
  }
  if (colon <= 0) {
    return {
      publicKey,
      signature: undefined,
      problem:
        `The Authorization header is not "<publicKey>:<signature>": it has no colon after a public key. ${problems.join(' ')}`.trim(),
    };
  }
  const keyPart = inner.slice(0, colon);
  let signature = inner.slice(colon + 1);
  if (keyPart !== keyPart.trim() || signature !== signature.trimStart()) {
    problems.push(
      'The Authorization header has a space around the colon: write <publicKey>:<signature>, with no space.',
    );
  }
  signature = signature.trim();
  if (/^".*"$|^'.*'$/.test(signature)) {
    problems.push('The signature is in quotes: write it without them.');
    signature = signature.slice(1, -1);
  }
  const prefix = /^[A-Za-z][A-Za-z0-9-]{0,15}=(?=[A-Za-z0-9+/_-]{16})/.exec(signature)?.[0];
  if (prefix) {
    const shown = knownPrefixes.test(prefix) ? `"${prefix}"` : 'a prefix (not shown)';
    problems.push(
      `The signature is written with ${shown} before it, as webhooks write theirs: write the signature alone after the colon.`,
    );
    signature = signature.slice(prefix.length);
  }
  if (signature.includes(':')) {
    problems.push(
      'The Authorization header has more than one colon: a public key never contains one, and the signature neither.',
    );
  }
  const encoded = reencode(signature, options);
  const otherHash = encoded.signature === undefined ? otherHashMac(signature, options) : undefined;
  if (otherHash) {
    problems.push(
      `The signature is ${otherHash.mac.length} bytes long, as an HMAC-${otherHash.hash.replace('-', '')} is: this service's is ${signatureForm(options)}.`,
    );
  } else if (encoded.problem) problems.push(encoded.problem);
  if (problems.length === 0) {
    problems.push(
      `The signature is not written as this service reads it: ${signatureForm(options)}.`,
    );
  }
  return {
    publicKey,
    signature: encoded.signature,
    problem: problems.join(' '),
    ...(otherHash ? { otherHash } : {}),
  };
}

/**
 * A key and a signature joined by another separator than the colon (a space, `;`, `|`, `=`, `,`),
 * when the part after it is a signature's length in hex or base64.
 */
function otherSeparator(
  inner: string,
): { publicKey: string; signature: string; words: string } | undefined {
  const found = /^([\x21-\x7e]+?)(\s+|[;|=,])\s*([A-Za-z0-9+/_=-]{20,})$/.exec(inner.trim());
  if (!found?.[1] || !found[2] || !found[3] || !visibleKey.test(found[1])) return undefined;
  const separator = found[2].trim();
  return {
    publicKey: found[1],
    signature: found[3],
    words: separator === '' ? 'a space' : `"${separator}"`,
  };
}

/** How the options write a signature, in words. */
export function signatureForm({ algorithm, encoding }: Required<SignatureOptions>): string {
  const bytes = DIGEST_BYTES[algorithm];
  return encoding === 'hex'
    ? `${bytes * 2} lowercase hexadecimal characters (HMAC-${algorithm.toUpperCase()}, hex)`
    : `the padded standard base64 of the ${bytes}-byte HMAC-${algorithm.toUpperCase()}`;
}

/** The signature in the options' encoding, when it is the right MAC length in another one. */
function reencode(
  signature: string,
  options: Required<SignatureOptions>,
): { signature: string | undefined; problem?: string } {
  const length = DIGEST_BYTES[options.algorithm];
  const form = signatureForm(options);
  const write = (bytes: Uint8Array) =>
    options.encoding === 'hex' ? bytesToHex(bytes) : bytesToBase64(bytes);
  if (/^[0-9a-fA-F]+$/.test(signature) && signature.length === length * 2) {
    const bytes = hexBytes(signature);
    if (options.encoding === 'hex' && /[A-F]/.test(signature)) {
      return {
        signature: write(bytes),
        problem: `The signature is in uppercase hexadecimal: write it in lowercase (${form}).`,
      };
    }
    if (options.encoding === 'base64') {
      return {
        signature: write(bytes),
        problem: `The signature is in hex: write it in base64 (${form}).`,
      };
    }
    return { signature: write(bytes) };
  }
  if (
    options.encoding === 'hex' &&
    /^[0-9a-fA-F]+$/.test(signature) &&
    signature.length === length * 2 - 1
  ) {
    return {
      signature: write(hexBytes(`0${signature}`)),
      problem: `The signature has ${length * 2 - 1} hexadecimal characters: its leading zero was dropped (as BigInteger.toString(16) or a number's hex does): write all ${length * 2}, zero-padded.`,
    };
  }
  const base64 = base64Bytes(signature);
  if (base64 && base64.length === length) {
    if (options.encoding === 'hex') {
      return {
        signature: write(base64),
        problem: `The signature is in base64: this service reads it in hex, not base64 (${form}).`,
      };
    }
    return {
      signature: write(base64),
      problem: `The signature is not in padded standard base64 (+ and /, with = at the end): ${form}.`,
    };
  }
  return {
    signature: undefined,
    problem: `The signature after the colon is not ${form}, nor the right length in another encoding.`,
  };
}

/** The MAC of another hash than the options', when `signature` has its length in hex or base64. */
function otherHashMac(
  signature: string,
  options: Required<SignatureOptions>,
): { hash: 'SHA-512' | 'SHA-1' | 'MD5'; mac: Uint8Array } | undefined {
  const bytes =
    /^[0-9a-fA-F]+$/.test(signature) && signature.length % 2 === 0
      ? hexBytes(signature)
      : base64Bytes(signature);
  if (bytes === undefined) return undefined;
  if (bytes.length === 64 && options.algorithm !== 'sha512') return { hash: 'SHA-512', mac: bytes };
  if (bytes.length === 20) return { hash: 'SHA-1', mac: bytes };
  if (bytes.length === 16) return { hash: 'MD5', mac: bytes };
  return undefined;
}

function hexBytes(text: string): Uint8Array {
  const bytes = new Uint8Array(text.length / 2);
  for (let i = 0; i < bytes.length; i++)
    bytes[i] = Number.parseInt(text.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}
