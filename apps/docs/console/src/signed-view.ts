/**
 * What the console signed and sent, and why a sandbox refused it: for each request, the exact body
 * bytes (their length and SHA-256), the `Authorization` value and the RFC 9421 signature base the
 * message signature covers (what a verifier computes from the request); and on a sandbox's `401`,
 * its `diagnosis` (spec: `Problem.diagnosis`) in words, compared with what was sent. Nothing here
 * holds the secret key: the signature base covers none.
 *
 * @module
 */
import {
  bodyFingerprint,
  type SignatureDiagnosis,
  signatureBaseFor,
} from '@institution-api/signing';
import { h } from './dom.js';
import type { SignedHeaders } from './send.js';

/** One request as it was signed and sent. */
export interface SentRequest {
  method: string;
  url: string;
  length: number;
  sha256: string;
  authorization: string;
  signatureInput: string;
  /** The signature base of the message signature, as any verifier computes it from the request. */
  signatureBase: string | undefined;
}

/** The label of the console's message signature (`@institution-api/signing`'s default). */
const label = 'sig1';

/** Describes a request about to be sent with `signed`: its bytes' fingerprint and its base. */
export async function describeSent(
  method: string,
  url: string,
  bytes: Uint8Array,
  signed: SignedHeaders,
): Promise<SentRequest> {
  const { length, sha256 } = await bodyFingerprint(bytes);
  return {
    method,
    url,
    length,
    sha256,
    authorization: signed.Authorization,
    signatureInput: signed['Signature-Input'],
    signatureBase: signatureBaseOf(method, url, signed),
  };
}

/** The signature base of `signed` for a request of `method` to `url`; undefined if none. */
export function signatureBaseOf(
  method: string,
  url: string,
  signed: Pick<SignedHeaders, 'Content-Digest' | 'Signature-Input'>,
): string | undefined {
  const fields: Record<string, string> = { 'content-digest': signed['Content-Digest'] };
  try {
    return signatureBaseFor(
      { method, url, header: (name) => fields[name] },
      signed['Signature-Input'],
      label,
    );
  } catch {
    return undefined;
  }
}

/** The "Signed and sent" list of one request. */
export function sentView(sent: SentRequest): Node[] {
  return [
    h(
      'dl',
      { class: 'try-it-preview' },
      h('dt', {}, 'Request'),
      h('dd', {}, h('code', {}, `${sent.method} ${sent.url}`)),
      h('dt', {}, 'Body'),
      h('dd', {}, `${sent.length} bytes, SHA-256 `, h('code', {}, sent.sha256)),
      h('dt', {}, 'Authorization'),
      h('dd', {}, h('code', {}, sent.authorization)),
      h('dt', {}, 'Signature base'),
      h(
        'dd',
        {},
        sent.signatureBase === undefined
          ? 'none'
          : h('code', { class: 'try-it-lines' }, sent.signatureBase),
      ),
    ),
  ];
}

/** What each cause means, in a sentence. */
const headlines: Record<SignatureDiagnosis['cause'], string> = {
  'authorization-malformed': 'The Authorization header is not written as the server reads it.',
  'body-bytes-differ': 'The signature covers other bytes than those the server received.',
  'key-misused': 'The HMAC was keyed with the wrong key.',
  'signature-base-differs':
    'The message signature does not cover this request as the server received it.',
  'no-known-mistake': 'The signature does not verify, and it is none of the usual mistakes.',
};

/**
 * The sandbox's diagnosis in words: the cause, the server's explanation, the part found wrong,
 * and the bytes and base the server computed compared with those this console sent.
 */
export function diagnosisView(
  diagnosis: SignatureDiagnosis,
  sent: SentRequest | undefined,
): Node[] {
  const { component, body, signedBody, signatureBase } = diagnosis;
  const sameBody = sent !== undefined && sent.sha256 === body.sha256;
  const lines: Node[] = [
    h('h4', {}, `Why: ${diagnosis.cause} (the sandbox’s diagnosis)`),
    h('p', {}, h('strong', {}, headlines[diagnosis.cause]), ` ${diagnosis.explanation}`),
  ];
  if (signedBody) {
    lines.push(
      h(
        'p',
        {},
        `It is the HMAC of ${signedBody.length} bytes (${signedBody.form}; SHA-256 `,
        h('code', {}, signedBody.sha256),
        ').',
      ),
    );
  }
  if (component) {
    lines.push(
      h(
        'p',
        {},
        `Wrong part: ${component.name}, ${component.problem}`,
        component.signed === undefined ? '' : '; signed ',
        component.signed === undefined ? '' : h('code', {}, component.signed),
        component.computed === undefined ? '' : '; the server computed ',
        component.computed === undefined ? '' : h('code', {}, component.computed),
        '.',
      ),
    );
  }
  lines.push(
    h(
      'p',
      {},
      `The server received ${body.length} bytes (SHA-256 `,
      h('code', {}, body.sha256),
      `): ${
        sent === undefined
          ? 'compare them with the bytes you signed.'
          : sameBody
            ? 'the very bytes this console sent.'
            : `not the ${sent.length} bytes this console sent (SHA-256 ${sent.sha256}).`
      }`,
    ),
  );
  if (signatureBase !== undefined) {
    const same = sent?.signatureBase === signatureBase;
    lines.push(
      h(
        'p',
        {},
        `The signature base the server computed${
          sent?.signatureBase === undefined
            ? ''
            : same
              ? ', the same as the one this console signed'
              : `, ${firstDifference(sent.signatureBase, signatureBase)}`
        }:`,
      ),
      h('code', { class: 'try-it-lines try-it-base' }, signatureBase),
    );
  }
  return [h('div', { class: 'try-it-diagnosis' }, ...lines)];
}

/** Where two signature bases part, in words. */
function firstDifference(signed: string, computed: string): string {
  const a = signed.split('\n');
  const b = computed.split('\n');
  const index = a.findIndex((line, i) => line !== b[i]);
  const line = index === -1 ? Math.min(a.length, b.length) : index;
  return `which differs from the one this console signed from line ${line + 1} (${JSON.stringify(a[line] ?? '')} signed here)`;
}
