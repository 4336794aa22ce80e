/**
 * What is wrong with a message signature's fields as written (RFC 9421, RFC 9530), in words a
 * signer can act on: `Signature-Input` or `Signature` that cannot be read (component names not
 * quoted, a MAC without its colons, a decimal `created`, two labels), a `Content-Digest` written
 * otherwise (hex, base64url, no colons, an uppercase or undashed algorithm, the older `Digest`
 * field), and a `created` in milliseconds or in local time. Used by the message signature's
 * diagnosis (message-signature-diagnosis.ts). Only labels, algorithm names and the request's own
 * digests are repeated back, never a value that could be a secret.
 *
 * @module
 */
import { type Item, parseDictionary, serializeItem } from 'structured-headers';
import type { DiagnosedComponent } from './diagnosis-common.js';
import { bytesToBase64, bytesToHex } from './encoding.js';
import {
  type LocatedMessageSignature,
  type ReceivedMessage,
  signatureBase,
} from './message-signature.js';
import { base64Bytes } from './misused-keys.js';

/** A part found wrong: in words, and as a component. */
export interface FieldProblem {
  words: string;
  component: DiagnosedComponent;
}

/** A label, repeated back when it is a short one (labels are names, not secrets). */
export function shownLabel(label: string): string {
  return /^[a-z*][a-z0-9_.*-]{0,15}$/.test(label) ? `"${label}"` : '(not shown)';
}

/** Why `Signature-Input` cannot be read as a dictionary, when it cannot. */
function signatureInputProblem(field: string): FieldProblem | undefined {
  try {
    parseDictionary(field);
    return undefined;
  } catch {
    // Read below.
  }
  if (/=\s*\(\s*['@a-z][^")]*[\s)]/i.test(field) && !/=\s*\(\s*"/.test(field)) {
    return {
      words:
        'the component names in Signature-Input are not quoted: write each one as a string, in double quotes: ("@method" "@path" "content-digest")',
      component: { name: 'signature-input', problem: 'malformed' },
    };
  }
  const longCreated = /;\s*created\s*=\s*-?(\d{16,})/.exec(field)?.[1];
  if (longCreated) {
    const unit = longCreated.length >= 19 ? 'nanoseconds' : 'microseconds';
    return {
      words: `created has ${longCreated.length} digits, more than an RFC 8941 integer holds (15): it is in ${unit}, and it is in seconds since the epoch (time.Now().Unix(), not UnixNano(); int(time.time()))`,
      component: { name: 'created', problem: 'malformed' },
    };
  }
  if (/;\s*created\s*=\s*-?\d+\.\d/.test(field)) {
    return {
      words:
        'created is a decimal number (as time.time() gives): it is a whole number of seconds since the epoch, int(time.time())',
      component: { name: 'created', problem: 'malformed' },
    };
  }
  return {
    words:
      'Signature-Input is not an RFC 8941 dictionary: sig1=("@method" "@path" "content-digest");created=…;nonce="…";keyid="…";alg="hmac-sha256"',
    component: { name: 'signature-input', problem: 'malformed' },
  };
}

/** Why `Signature` cannot be read, or has no byte sequence for `label`, when so. */
function signatureProblem(field: string, label: string | undefined): FieldProblem | undefined {
  let signatures: ReturnType<typeof parseDictionary>;
  try {
    signatures = parseDictionary(field);
  } catch {
    const bare = /^\s*[a-z*][a-z0-9_.*-]*\s*=\s*[A-Za-z0-9+/_-]+={0,2}\s*$/.test(field);
    const urlSafe = /=\s*:[A-Za-z0-9+/_-]*[_-][A-Za-z0-9+/_-]*=*:/.test(field);
    const unpadded = /=\s*:([A-Za-z0-9+/]+):/.exec(field)?.[1];
    return {
      words: bare
        ? 'the MAC in Signature is not between colons: write sig1=:<base64>:, a byte sequence'
        : urlSafe
          ? 'the MAC in Signature is in base64url: a byte sequence is standard base64 (+ and /, padded with =)'
          : unpadded !== undefined && unpadded.length % 4 !== 0
            ? 'the MAC in Signature has no base64 padding: write it padded with ='
            : 'Signature is not an RFC 8941 dictionary: sig1=:<base64 of the MAC>:',
      component: { name: 'signature', problem: 'malformed' },
    };
  }
  if (label === undefined) return undefined;
  const member = signatures.get(label);
  if (member === undefined) {
    const others = [...signatures.keys()].map(shownLabel).join(', ');
    return {
      words: `Signature has no member labelled ${shownLabel(label)}, the label of this signature in Signature-Input${others ? ` (Signature's label: ${others})` : ''}: one signature has the same label in both fields`,
      component: { name: 'signature', problem: 'missing' },
    };
  }
  if (!(member[0] instanceof ArrayBuffer)) {
    return {
      words:
        'the MAC in Signature is not a byte sequence: write it in base64 between colons, sig1=:<base64>:',
      component: { name: 'signature', problem: 'malformed' },
    };
  }
  return undefined;
}

/** The label of the `Signature-Input` member for `keyId`, or of its only member. */
function labelFor(field: string, keyId: string): string | undefined {
  try {
    const inputs = [...parseDictionary(field)];
    const mine = inputs.find(([, member]) => member[1].get('keyid') === keyId);
    return (mine ?? (inputs.length === 1 ? inputs[0] : undefined))?.[0];
  } catch {
    return undefined;
  }
}

/** Which part of a message signature cannot be read, in words and as a component. */
export function malformedPart(
  message: ReceivedMessage,
  found: LocatedMessageSignature | undefined,
  keyId: string,
): FieldProblem {
  const input = message.header('signature-input');
  const signature = message.header('signature');
  for (const [name, value] of [
    ['signature-input', input],
    ['signature', signature],
  ] as const) {
    if (value === undefined) {
      return { words: `${name} is missing`, component: { name, problem: 'missing' } };
    }
  }
  const inputProblem = signatureInputProblem(input ?? '');
  if (inputProblem) return inputProblem;
  const signatureFieldProblem = signatureProblem(signature ?? '', labelFor(input ?? '', keyId));
  if (signatureFieldProblem) return signatureFieldProblem;
  if (found !== undefined) {
    for (const item of found.innerList[0]) {
      try {
        signatureBase(message, [[item], new Map()]);
      } catch {
        return underivable(message, item);
      }
    }
  }
  return {
    words: 'a component is covered twice',
    component: { name: 'signature-input', problem: 'malformed' },
  };
}

/** A covered component the request does not give. */
function underivable(message: ReceivedMessage, item: Item): FieldProblem {
  const [name, params] = item;
  const field = typeof name === 'string' && !name.startsWith('@') && params.size === 0;
  const component = typeof name === 'string' ? name : serializeItem(item);
  if (!field || message.header(component) !== undefined) {
    return {
      words: `its component ${serializeItem(item)} cannot be derived (a parameter, or an unknown derived component)`,
      component: { name: component, problem: 'malformed' },
    };
  }
  const digest =
    component === 'content-digest' && message.header('digest') !== undefined
      ? ': the request has the older Digest field (RFC 3230) instead; send Content-Digest (RFC 9530), sha-256=:<base64>:'
      : '';
  return {
    words: `it covers the field ${component}, which the request does not carry${digest}`,
    component: { name: component, problem: 'missing' },
  };
}

/**
 * A `Content-Digest` written otherwise than RFC 9530 has it, read as its sender meant it: what
 * is wrong with its form, and whether, so read, it is the digest of the bytes received.
 */
export function digestFormProblem(
  field: string,
  digests: { 'sha-256': Uint8Array; 'sha-512': Uint8Array },
): string | undefined {
  const member = /^\s*([A-Za-z0-9*_.-]+)\s*=\s*(.*?)\s*$/.exec(field);
  if (!member?.[1] || member[2] === undefined) return undefined;
  const name = member[1];
  const value = member[2];
  const problems: string[] = [];
  const algorithm = name.toLowerCase().replace(/^sha-?(256|512)$/, 'sha-$1');
  if (algorithm !== 'sha-256' && algorithm !== 'sha-512') return undefined;
  if (name !== name.toLowerCase()) {
    problems.push(
      `its algorithm is written in uppercase: dictionary keys are lowercase, ${algorithm}`,
    );
  } else if (name !== algorithm) {
    problems.push(
      `its algorithm is named "${name}": RFC 9530 names it "${algorithm}", with a dash`,
    );
  }
  const expected = digests[algorithm];
  let text = value;
  const colons = /^:(.*):$/.exec(value);
  if (colons) text = colons[1] ?? '';
  else if (/^"(.*)"$/.test(value)) {
    problems.push('its value is a string in quotes: it is a byte sequence, between colons');
    text = value.slice(1, -1);
  } else {
    problems.push('its value is not between colons: it is a byte sequence, sha-256=:<base64>:');
  }
  let meant: Uint8Array | undefined;
  if (/^[0-9a-fA-F]+$/.test(text) && text.length === expected.length * 2) {
    problems.push('it holds the digest in hex: write it in base64');
    meant = hexBytes(text);
  } else if (/[-_]/.test(text)) {
    problems.push('it is in base64url: write standard base64 (+ and /, padded with =)');
    meant = base64Bytes(text);
  } else if (colons && text.length % 4 !== 0) {
    problems.push('its base64 has no padding: write it padded with =');
    meant = base64Bytes(text);
  } else {
    meant = base64Bytes(text);
  }
  const other = algorithm === 'sha-256' ? 'sha-512' : 'sha-256';
  if (meant !== undefined && bytesToHex(meant) === bytesToHex(digests[other])) {
    problems.push(
      `it holds the ${other.toUpperCase()} digest of the bytes received under the name ${algorithm}: name it ${other}, or digest with ${algorithm.toUpperCase()}`,
    );
    return `Content-Digest is written otherwise than RFC 9530 has it: ${problems.join('; ')}.`;
  }
  if (problems.length === 0) return undefined;
  const same = meant !== undefined && bytesToHex(meant) === bytesToHex(expected);
  return `Content-Digest is written otherwise than RFC 9530 has it: ${problems.join('; ')}. ${
    same
      ? 'So read, it is the digest of the bytes received: only its form is wrong.'
      : 'Even so read, it is not the digest of the bytes received (computed shows theirs).'
  } Write ${algorithm}=:${bytesToBase64(expected)}: for these bytes.`;
}

function hexBytes(text: string): Uint8Array {
  const bytes = new Uint8Array(text.length / 2);
  for (let i = 0; i < bytes.length; i++)
    bytes[i] = Number.parseInt(text.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

/**
 * What is likely wrong with a `created` out of the window, when it is another unit (milliseconds,
 * micro-, nanoseconds) or a whole number of half hours off (a time zone), in words that follow
 * the sentence saying how far it is.
 */
export function createdUnitProblem(created: number, now: number, skew: number): string | undefined {
  for (const [factor, unit, code] of [
    [1000, 'milliseconds', 'Math.floor(Date.now() / 1000), System.currentTimeMillis() / 1000'],
    [1_000_000, 'microseconds', 'int(time.time()), not time.time_ns() // 1000'],
    [1_000_000_000, 'nanoseconds', 'time.Now().Unix(), not UnixNano()'],
  ] as const) {
    if (Math.abs(created / factor - now) <= skew + 1) {
      return `It is in ${unit}: created is in seconds since the epoch (${code}).`;
    }
  }
  const offset = created - now;
  const halfHours = Math.round(offset / 1800);
  if (halfHours !== 0 && Math.abs(offset - halfHours * 1800) <= skew) {
    const minutes = Math.abs(halfHours) * 30;
    const span = minutes % 60 === 0 ? `${minutes / 60} h` : `${Math.floor(minutes / 60)} h 30 min`;
    const zone =
      'created is the UNIX time, the seconds since 1970 in UTC, whatever the zone: time.time(), Instant.now().getEpochSecond(), time.Now().Unix(), time()';
    return offset > 0
      ? `That is ${span} ahead, a whole number of half hours: a local time taken for UTC (a time zone east of UTC) gives that. ${zone}.`
      : `That is ${span}, a whole number of half hours: either the request was sent ${span} after it was signed, or a local time was taken for UTC (a time zone west of UTC). ${zone}.`;
  }
  return undefined;
}
