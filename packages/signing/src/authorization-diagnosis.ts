/**
 * The diagnosis of an `Authorization` signature that does not verify (spec: `SignatureDiagnosis`,
 * `signature: authorization`): a header not written `<publicKey>:<signature>` (its form read as
 * meant, authorization-form.ts, then the signature it carries diagnosed too); the HMAC keyed with
 * a misused key, or not an HMAC (misused-keys.ts); the HMAC of other bytes than those received
 * (body-variants.ts); or none of these.
 *
 * @module
 */
import { resolveOptions, WEB_CRYPTO_HASH } from './algorithms.js';
import { readMalformedAuthorization } from './authorization-form.js';
import { parseAuthorization } from './authorization-header.js';
import { bodyVariants } from './body-variants.js';
import {
  type BodyFingerprint,
  type DiagnoseSignatureOptions,
  type DiagnosisRun,
  fingerprint,
  firstVariant,
  gaveUp,
  type SignatureDiagnosis,
} from './diagnosis-common.js';
import { decodeSignature } from './encoding.js';
import type { ReceivedMessage } from './message-signature.js';
import { findKeyMisuse } from './misused-keys.js';

const utf8 = new TextEncoder();

/**
 * The diagnosis of `message`'s `Authorization` signature, or undefined when it holds for this
 * key pair.
 */
export async function diagnoseAuthorization(
  message: ReceivedMessage,
  body: BodyFingerprint,
  options: DiagnoseSignatureOptions,
  run: DiagnosisRun,
): Promise<SignatureDiagnosis | undefined> {
  const header = message.header('authorization') ?? '';
  const resolved = resolveOptions(options.signature);
  const presented = parseAuthorization(header, resolved);
  if (presented === null) {
    const reading = readMalformedAuthorization(header, resolved);
    let explanation = reading.problem;
    if (reading.otherHash?.hash === 'MD5') {
      explanation += ' Compute HMAC-SHA256, keyed with the secret key.';
    } else if (reading.otherHash) {
      const { hash, mac } = reading.otherHash;
      const check = await run.crypto.macCheck(utf8.encode(options.secretKey), hash);
      explanation += (await check(new Uint8Array(mac), new Uint8Array(message.body)))
        ? ` It is the HMAC-${hash.replace('-', '')} of the bytes received, with the secret key: use SHA-256.`
        : ` It is not the HMAC-${hash.replace('-', '')} of the bytes received either.`;
    } else if (reading.signature !== undefined) {
      if (await macHolds(run, options, reading.signature, message.body)) {
        explanation += ' Written so, the signature is right: only its form is wrong.';
      } else {
        const inner = await diagnoseMac(message, body, reading.signature, options, run);
        explanation += ` Written so, the signature still does not verify: ${inner.explanation}`;
      }
    }
    return { cause: 'authorization-malformed', signature: 'authorization', explanation, body };
  }
  if (await macHolds(run, options, presented.signature, message.body)) return undefined;
  return diagnoseMac(message, body, presented.signature, options, run);
}

/** Whether `signature` (in the options' encoding) is the HMAC of `bytes` with the secret key. */
async function macHolds(
  run: DiagnosisRun,
  options: DiagnoseSignatureOptions,
  signature: string,
  bytes: Uint8Array,
): Promise<boolean> {
  const resolved = resolveOptions(options.signature);
  const mac = decodeSignature(signature, resolved);
  if (mac === null) return false;
  const secret = await run.crypto.macCheck(
    utf8.encode(options.secretKey),
    WEB_CRYPTO_HASH[resolved.algorithm],
  );
  return secret(mac, new Uint8Array(bytes));
}

/** Why `signature`, well formed, is not the HMAC of the body received with the secret key. */
async function diagnoseMac(
  message: ReceivedMessage,
  body: BodyFingerprint,
  signature: string,
  options: DiagnoseSignatureOptions,
  run: DiagnosisRun,
): Promise<SignatureDiagnosis> {
  const { crypto, spending } = run;
  const resolved = resolveOptions(options.signature);
  const mac = decodeSignature(signature, resolved) as Uint8Array<ArrayBuffer>;
  const hash = WEB_CRYPTO_HASH[resolved.algorithm];
  const misuse = await findKeyMisuse(crypto, spending, options, hash, mac, message.body, 'body');
  if (misuse) {
    return {
      cause: 'key-misused',
      signature: 'authorization',
      explanation: `The Authorization signature is ${misuse.what}. ${misuse.advice}`,
      body,
      key: misuse.key,
    };
  }
  const secret = await crypto.macCheck(utf8.encode(options.secretKey), hash);
  const url = typeof message.url === 'string' ? new URL(message.url) : message.url;
  const variant = await firstVariant(
    bodyVariants(message.body, spending, {
      method: message.method,
      path: url.pathname,
      documentedKeyOrders: options.documentedKeyOrders,
      sha256Hex: body.sha256,
    }),
    (bytes) => secret(mac, bytes),
  );
  if (variant) {
    return {
      cause: 'body-bytes-differ',
      signature: 'authorization',
      explanation: `The Authorization signature is the HMAC of ${variant.signed}, not of the ${body.length} bytes this service received. ${variant.advice}`,
      body,
      signedBody: { ...(await fingerprint(crypto, variant.bytes)), form: variant.form },
    };
  }
  return {
    cause: 'no-known-mistake',
    signature: 'authorization',
    explanation:
      (spending.limit
        ? `The Authorization signature is not the HMAC of the bytes received, nor keyed with a misused key. ${gaveUp(spending, 'the same JSON written otherwise')} `
        : 'The Authorization signature is not the HMAC of the bytes received, nor of the same JSON written otherwise, nor keyed with a misused key. ') +
      bodyNote(message) +
      "Compare body (the length and SHA-256 of the bytes received) with the bytes you signed, and check that the secret key is this key pair's.",
    body,
  };
}

/**
 * What is wrong with the body received itself, when something is: none, a form, a multipart
 * message, or a text that is not JSON. Said when no signed bytes were found: the signature may be
 * of the JSON its sender meant to send.
 */
export function bodyNote(message: ReceivedMessage): string {
  const type = (message.header('content-type') ?? '').toLowerCase();
  if (message.body.length === 0) {
    return 'The request arrived without a body: send the JSON text you signed as its body. ';
  }
  // A body this large is not looked into: the service's bodies are a few KiB.
  if (message.body.length > 16 * 1024) return '';
  const text = new TextDecoder().decode(message.body);
  if (type.startsWith('multipart/form-data')) {
    return 'The body received is multipart/form-data, not JSON (as a client given an array or a dict as form fields sends it): send the JSON text you signed as the body, with Content-Type: application/json. ';
  }
  if (
    type.startsWith('application/x-www-form-urlencoded') ||
    /^[\w.%*+-]+=[^&{}"]*(?:&[\w.%*+-]+=[^&{}"]*)+$/.test(text)
  ) {
    return 'The body received is form-encoded (name=value&…), not JSON (as urlencode, http_build_query or a client given an array or a dict as form data writes it): send the JSON text you signed as the body. ';
  }
  try {
    JSON.parse(text.replace(/^\ufeff/, ''));
    return '';
  } catch (error) {
    const cut = /end of (?:JSON )?input|Unterminated/i.test(String((error as Error).message));
    return cut
      ? 'The body received is not JSON: it ends before its JSON does. A Content-Length that counts characters (body.length) instead of bytes (Buffer.byteLength(body)) cuts a body with non-ASCII text short. '
      : 'The body received is not JSON. ';
  }
}
