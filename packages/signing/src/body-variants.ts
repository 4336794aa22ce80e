/**
 * The other bytes a sender may have signed instead of those it sent: the same JSON value written
 * another way, as the serializers of the usual languages write it by default. A diagnosis
 * (signature-diagnosis.ts) tries each, so that a sandbox can tell "you signed re-serialized JSON"
 * from any other mistake (spec: `SignatureDiagnosis`, cause `body-bytes-differ`).
 *
 * @module
 */
import { DiagnosisSpending, maxBodyBytes } from './diagnosis-budget.js';

/** Bytes a sender may have signed, and how they differ from those received, in words. */
export interface BodyVariant {
  /** `pretty-printed with 2 spaces, keys sorted`, … */
  form: string;
  bytes: Uint8Array<ArrayBuffer>;
}

/** How a serializer lays out the text between tokens. */
interface Spacing {
  label: string;
  /** Indentation of one level; empty for one line. */
  indent: string;
  /** Between items on one line: `,` or `, ` (Python's `json.dumps`). */
  itemSeparator: string;
  /** Between a key and its value: `:` or `: `. */
  keySeparator: string;
}

const spacings: readonly Spacing[] = [
  { label: 'compact', indent: '', itemSeparator: ',', keySeparator: ':' },
  {
    label: "with a space after each ',' and ':' (Python's json.dumps)",
    indent: '',
    itemSeparator: ', ',
    keySeparator: ': ',
  },
  { label: 'pretty-printed with 2 spaces', indent: '  ', itemSeparator: ',', keySeparator: ': ' },
  { label: 'pretty-printed with 4 spaces', indent: '    ', itemSeparator: ',', keySeparator: ': ' },
  { label: 'pretty-printed with tabs', indent: '\t', itemSeparator: ',', keySeparator: ': ' },
];

const hex4 = (unit: number) => `\\u${unit.toString(16).padStart(4, '0')}`;

/**
 * How a serializer escapes what JSON allows raw; each as a language's default does it. `changes`
 * finds what a rewrite would change: a text without it is left as it is (and is a variant
 * already).
 */
const escapings: readonly {
  label: string | undefined;
  changes?: RegExp;
  rewrite: (json: string) => string;
}[] = [
  { label: undefined, rewrite: (json) => json },
  {
    label: 'non-ASCII written as \\uXXXX',
    changes: /[\u0080-\uffff]/,
    rewrite: (json) => json.replace(/[\u0080-\uffff]/g, (c) => hex4(c.charCodeAt(0))),
  },
  {
    label: "'/' written as '\\/'",
    changes: /\//,
    rewrite: (json) => json.replaceAll('/', '\\/'),
  },
  {
    label: "non-ASCII written as \\uXXXX and '/' as '\\/' (PHP's json_encode)",
    changes: /[\u0080-\uffff/]/,
    rewrite: (json) =>
      json.replace(/[\u0080-\uffff]/g, (c) => hex4(c.charCodeAt(0))).replaceAll('/', '\\/'),
  },
  {
    label: "'<', '>' and '&' written as \\u003c, \\u003e and \\u0026 (Go's encoding/json)",
    changes: /[<>&\u2028\u2029]/,
    rewrite: (json) => json.replace(/[<>&\u2028\u2029]/g, (c) => hex4(c.charCodeAt(0))),
  },
];

const utf8 = new TextEncoder();
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Every distinct way of writing the received body that a sender is known to have signed instead
 * of it, each at most once and never the received bytes themselves, as long as `spending` allows
 * (diagnosis-budget.ts; it records which bound stopped them):
 * - the bytes received with a final newline added (LF or CRLF) or dropped;
 * - when they are JSON, the value they parse to written compact, with Python's spaces, or
 *   pretty-printed (2 spaces, 4, tabs); with its keys as received or sorted; non-ASCII, `/` or
 *   `<>&` escaped as the usual serializers do; with or without a final newline.
 * At most 103 variants, made one at a time as they are asked for, so that a diagnosis that
 * finds its cause early writes no more. None for a body over 16 KiB, none but the line ends for
 * one nested deeper than the budget's depth or holding more values than its count. A string in
 * a variant is escaped only where the escaping is about the JSON text: the value is always the
 * one received.
 */
export function* bodyVariants(
  received: Uint8Array,
  spending: DiagnosisSpending = new DiagnosisSpending(),
): Generator<BodyVariant> {
  if (received.length > maxBodyBytes) {
    spending.stop('size');
    return;
  }
  let text: string;
  try {
    text = strictUtf8.decode(received);
  } catch {
    return;
  }
  // By length first: comparing two texts of one length costs less than hashing every text.
  const seen = new Map<number, string[]>([[text.length, [text]]]);
  /** The variant `candidate`, when it is new and the budget allows it. */
  const variant = (form: string, candidate: string): BodyVariant | undefined => {
    const sameLength = seen.get(candidate.length);
    if (sameLength?.includes(candidate)) return undefined;
    if (sameLength) sameLength.push(candidate);
    else seen.set(candidate.length, [candidate]);
    const bytes = utf8.encode(candidate);
    return spending.take(bytes.length) ? { form, bytes } : undefined;
  };
  /** The variants of `candidates` ([form, text]), one by one, until the budget is spent. */
  function* each(candidates: [string, string][]): Generator<BodyVariant> {
    for (const [form, candidate] of candidates) {
      const found = variant(form, candidate);
      if (found) yield found;
      if (spending.limit) return;
    }
  }
  yield* each([
    ['the bytes received without their final newline', text.replace(/\r?\n$/, '')],
    ['the bytes received with a final newline added', `${text}\n`],
    ['the bytes received with a final CRLF added', `${text}\r\n`],
  ]);
  if (spending.limit) return;

  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return;
  }
  const tooLarge = shapeBeyond(value, spending.budget.maxDepth, spending.budget.maxValues);
  if (tooLarge) {
    spending.stop(tooLarge);
    return;
  }
  for (const spacing of spacings) {
    for (const sortKeys of [false, true]) {
      const written = writeJson(value, spacing, sortKeys, spending.bytesLeft);
      if (written === undefined) {
        spending.stop('bytes');
        return;
      }
      for (const { label, changes, rewrite } of escapings) {
        if (changes && !changes.test(written)) continue;
        // A rewrite is never shorter than what it rewrites: past the budget, none is made.
        if (written.length > spending.bytesLeft) {
          spending.stop('bytes');
          return;
        }
        const escaped = rewrite(written);
        const form = [spacing.label, sortKeys ? 'keys sorted' : '', label ?? '']
          .filter((part) => part !== '')
          .join(', ');
        yield* each([
          [form, escaped],
          [`${form}, with a final newline`, `${escaped}\n`],
        ]);
        if (spending.limit) return;
      }
    }
  }
}

/**
 * Which bound of the budget a parsed body goes beyond, if any: nested deeper than `maxDepth`
 * (objects and arrays in one another), or more than `maxValues` values in all. Stops at the first
 * value beyond, so it costs no more than the bound.
 */
function shapeBeyond(
  value: unknown,
  maxDepth: number,
  maxValues: number,
): 'depth' | 'values' | undefined {
  let values = 0;
  const walk = (item: unknown, depth: number): 'depth' | 'values' | undefined => {
    values += 1;
    if (values > maxValues) return 'values';
    if (item === null || typeof item !== 'object') return undefined;
    if (depth === maxDepth) return 'depth';
    for (const inner of Object.values(item)) {
      const beyond = walk(inner, depth + 1);
      if (beyond) return beyond;
    }
    return undefined;
  };
  return walk(value, 0);
}

/** Thrown by {@link writeJson}'s writer past its limit. */
const tooLong = Symbol('too long');

/**
 * `value` as JSON with `spacing`, its keys as parsed or sorted (by UTF-16 code units); undefined
 * as soon as the text would be longer than `limit` UTF-16 code units, so that nothing longer is
 * ever written.
 */
function writeJson(
  value: unknown,
  spacing: Spacing,
  sortKeys: boolean,
  limit: number,
): string | undefined {
  const parts: string[] = [];
  let length = 0;
  const put = (part: string) => {
    length += part.length;
    if (length > limit) throw tooLong;
    parts.push(part);
  };
  const pretty = spacing.indent !== '';
  const write = (item: unknown, outer: string): void => {
    if (item === null || typeof item !== 'object') {
      put(JSON.stringify(item));
      return;
    }
    const inner = outer + spacing.indent;
    const array = Array.isArray(item) ? (item as unknown[]) : undefined;
    const keys = array ? undefined : Object.keys(item);
    if (keys && sortKeys) keys.sort();
    const count = array ? array.length : (keys?.length ?? 0);
    put(array ? '[' : '{');
    for (let i = 0; i < count; i++) {
      if (i > 0) put(spacing.itemSeparator);
      if (pretty) put(`\n${inner}`);
      if (array) write(array[i], inner);
      else {
        const key = keys?.[i] as string;
        put(JSON.stringify(key));
        put(spacing.keySeparator);
        write((item as Record<string, unknown>)[key], inner);
      }
    }
    if (pretty && count > 0) put(`\n${outer}`);
    put(array ? ']' : '}');
  };
  try {
    write(value, '');
  } catch (error) {
    if (error === tooLong) return undefined;
    throw error;
  }
  return parts.join('');
}
