/**
 * The doctor's report of one request, in words: what was received (the request line, the body's
 * exact bytes, their length and SHA-256), each signature's verdict with the cause a sandbox would
 * name, and the RFC 9421 signature base computed from the request. Never a secret, nor a signature
 * computed with it: the diagnosis holds neither, and the presented signature is not repeated.
 *
 * @module
 */
import type { SignatureDiagnosis } from '@institution-api/signing';
import type { Examination, MessageSignatureFinding } from './examine.js';

/** The most characters of the body's text shown; the rest is counted. */
const shownBodyCharacters = 4000;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Whether both signatures hold (a message signature may be absent unless `required`). */
export function isValid(examination: Examination, required: boolean): boolean {
  const verdict = examination.messageSignature?.verdict.status ?? 'absent';
  return (
    examination.authorization.status === 'valid' &&
    (verdict === 'valid' || (verdict === 'absent' && !required))
  );
}

/** How the report is made: the clock, the window, the policy assumed, the known public key. */
export interface ReportOptions {
  now: number;
  maxAgeSeconds: number;
  required: boolean;
  /** INSTITUTION_PUBLIC_KEY: the only key the report names (another could be a secret). */
  publicKey: string | undefined;
  /** Whether the clock was given (`--at`), rather than now. */
  clockGiven?: boolean;
}

/**
 * The key an `Authorization` header names, as the report shows it: itself when it is the known
 * public key, else words (a value in its place could be a secret sent by mistake).
 */
function shownKey(named: string | undefined, known: string | undefined): string {
  if (named === undefined) return 'none';
  if (named === known) return named;
  return known === undefined
    ? 'not shown: set INSTITUTION_PUBLIC_KEY to see it named'
    : 'not INSTITUTION_PUBLIC_KEY, not shown';
}

/** The report, as lines of text ending with the verdict. */
export function report(examination: Examination, options: ReportOptions): string {
  const { method, target, fingerprint, authorization } = examination;
  const lines = [
    `${method} ${target.pathname}${target.search} (target URI ${target.href})`,
    `body: ${fingerprint.length} bytes, SHA-256 ${fingerprint.sha256}`,
    ...indent(bodyText(examination.body)),
    '',
  ];
  if (authorization.status === 'missing') {
    lines.push(
      'Authorization: missing: every request carries Authorization: <publicKey>:<signature>',
    );
  } else if (authorization.status === 'valid') {
    lines.push(
      `Authorization (key ${shownKey(authorization.publicKey, options.publicKey)}): valid`,
    );
  } else {
    lines.push(
      `Authorization (key ${shownKey(authorization.publicKey, options.publicKey)}): invalid, ${authorization.diagnosis.cause}`,
      ...indent(diagnosisLines(authorization.diagnosis)),
    );
  }
  lines.push('');
  lines.push(...messageSignatureLines(examination.messageSignature, options));
  lines.push('');
  const causes = [
    authorization.status === 'invalid' ? authorization.diagnosis.cause : undefined,
    examination.messageSignature?.diagnosis?.cause,
  ].filter((cause) => cause !== undefined);
  const valid = isValid(examination, options.required);
  lines.push(
    valid
      ? 'verdict: valid'
      : `verdict: invalid${causes.length > 0 ? ` (${causes.join('; ')})` : authorization.status === 'missing' ? ' (no Authorization)' : ' (no message signature)'}`,
  );
  return `${lines.join('\n')}\n`;
}

function messageSignatureLines(
  finding: MessageSignatureFinding | undefined,
  options: ReportOptions,
): string[] {
  if (finding === undefined || finding.verdict.status === 'absent') {
    return [
      options.required
        ? 'message signature: none, and this key pair requires one (Content-Digest, Signature-Input, Signature)'
        : 'message signature: none. This tool cannot know whether the key pair requires one (its policy, which the service keeps): one that does refuses this request. Run it with --require-message-signature to check it as such a key pair.',
    ];
  }
  const { verdict, description, diagnosis, signatureBase } = finding;
  const label = description?.label ?? (verdict.status === 'valid' ? verdict.label : undefined);
  const lines = [
    `message signature${label === undefined ? '' : ` ${label}`}: ${verdict.status === 'valid' ? 'valid' : `invalid, ${diagnosis?.cause ?? verdict.reason}`}`,
  ];
  if (description) lines.push(`  covers ${description.components.join(' ')}`);
  const created = description?.parameters.created;
  if (typeof created === 'number') {
    const skew = options.now - created;
    const within = Math.abs(skew) <= options.maxAgeSeconds;
    lines.push(
      `  created ${created} (${isoTime(created)}): ${Math.abs(skew)} s ${skew >= 0 ? 'before' : 'after'} this clock (${options.now}), ${within ? 'within' : 'outside'} ±${options.maxAgeSeconds} s`,
    );
    if (!within && skew > 0 && !options.clockGiven) {
      lines.push(
        '  (a capture checked later than it was made: --at <the time it was captured> checks it at that time)',
      );
    }
  }
  if (verdict.status === 'valid') {
    lines.push(
      `  nonce ${JSON.stringify(verdict.nonce)}: not checked. This tool cannot know whether the service saw this nonce before: it accepts each nonce once, so a request sent again (a retry with the same headers) is refused; sign every request anew, with a new nonce.`,
    );
  }
  if (diagnosis) lines.push(...indent(diagnosisLines({ ...diagnosis, signatureBase: undefined })));
  const base = signatureBase ?? diagnosis?.signatureBase;
  if (base !== undefined) {
    lines.push('  signature base, as the service computes it from this request:');
    lines.push(...indent(base.split('\n'), '    '));
  }
  return lines;
}

/** A diagnosis in lines: the explanation, then what it found. */
function diagnosisLines(
  diagnosis: Omit<SignatureDiagnosis, 'signatureBase'> & { signatureBase?: string | undefined },
): string[] {
  const lines = [diagnosis.explanation];
  const { signedBody, key, component } = diagnosis;
  if (signedBody) {
    lines.push(
      `signed instead: ${signedBody.length} bytes, SHA-256 ${signedBody.sha256} (${signedBody.form})`,
    );
  }
  if (key) lines.push(`HMAC key used: ${key}`);
  if (component) {
    lines.push(
      `component: ${component.name}, ${component.problem}${component.signed === undefined ? '' : `; signed: ${component.signed}`}${component.computed === undefined ? '' : `; computed: ${component.computed}`}`,
    );
  }
  return lines;
}

/** The body as a JSON string literal, so every byte shows (a final newline as `\n`). */
function bodyText(body: Uint8Array): string[] {
  if (body.length === 0) return ['(empty)'];
  let text: string;
  try {
    text = strictUtf8.decode(body);
  } catch {
    return ['(not UTF-8 text)'];
  }
  const shown = text.length > shownBodyCharacters ? text.slice(0, shownBodyCharacters) : text;
  const rest = text.length - shown.length;
  return [`${JSON.stringify(shown)}${rest > 0 ? ` … and ${rest} more characters` : ''}`];
}

function indent(lines: string[], by = '  '): string[] {
  return lines.map((line) => `${by}${line}`);
}

function isoTime(seconds: number): string {
  const date = new Date(seconds * 1000);
  return Number.isNaN(date.getTime()) ? 'not a time' : date.toISOString().replace('.000Z', 'Z');
}
