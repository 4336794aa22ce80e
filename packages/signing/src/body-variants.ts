/**
 * The other bytes a sender may have signed instead of those it sent: the same JSON value written
 * another way, as the serializers of the usual languages write it by default. A diagnosis
 * (signature-diagnosis.ts) tries each, so that a sandbox can tell "you signed re-serialized JSON"
 * from any other mistake (spec: `SignatureDiagnosis`, cause `body-bytes-differ`).
 *
 * @module
 */

/** Bytes a sender may have signed, and how they differ from those received, in words. */
export interface BodyVariant {
  /** `pretty-printed with 2 spaces, keys sorted`, … */
  form: string;
  bytes: Uint8Array;
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

/** How a serializer escapes what JSON allows raw; each as a language's default does it. */
const escapings: readonly { label: string | undefined; rewrite: (json: string) => string }[] = [
  { label: undefined, rewrite: (json) => json },
  {
    label: 'non-ASCII written as \\uXXXX',
    rewrite: (json) => json.replace(/[\u0080-\uffff]/g, (c) => hex4(c.charCodeAt(0))),
  },
  { label: "'/' written as '\\/'", rewrite: (json) => json.replaceAll('/', '\\/') },
  {
    label: "non-ASCII written as \\uXXXX and '/' as '\\/' (PHP's json_encode)",
    rewrite: (json) =>
      json.replace(/[\u0080-\uffff]/g, (c) => hex4(c.charCodeAt(0))).replaceAll('/', '\\/'),
  },
  {
    label: "'<', '>' and '&' written as \\u003c, \\u003e and \\u0026 (Go's encoding/json)",
    rewrite: (json) => json.replace(/[<>&\u2028\u2029]/g, (c) => hex4(c.charCodeAt(0))),
  },
];

const utf8 = new TextEncoder();
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Above this, no re-serialization is tried: the service's bodies are a few KiB, and trying every
 * variant of a body near the 64 KiB limit would cost a sandbox a noticeable fraction of a second
 * of CPU per refusal, most of it HMACs.
 */
const maxBytes = 16 * 1024;

/**
 * Nor deeper than this: the API's bodies nest three levels, and pretty-printing a body of 64 KiB
 * of nested brackets would write gigabytes (the indentation grows with the depth).
 */
const maxDepth = 32;

/**
 * Every distinct way of writing the received body that a sender is known to have signed instead
 * of it, each at most once and never the received bytes themselves:
 * - the bytes received with a final newline added (LF or CRLF) or dropped;
 * - when they are JSON, the value they parse to written compact, with Python's spaces, or
 *   pretty-printed (2 spaces, 4, tabs); with its keys as received or sorted; non-ASCII, `/` or
 *   `<>&` escaped as the usual serializers do; with or without a final newline.
 * At most 103 variants; none for a body over 16 KiB, none but the line ends for one nested
 * deeper than 32 levels. A string in a variant is escaped only where
 * the escaping is about the JSON text: the value is always the one received.
 */
export function bodyVariants(received: Uint8Array): BodyVariant[] {
  if (received.length > maxBytes) return [];
  let text: string;
  try {
    text = strictUtf8.decode(received);
  } catch {
    return [];
  }
  const seen = new Set<string>([text]);
  const variants: BodyVariant[] = [];
  const add = (form: string, candidate: string) => {
    if (seen.has(candidate)) return;
    seen.add(candidate);
    variants.push({ form, bytes: utf8.encode(candidate) });
  };
  const trimmed = text.replace(/\r?\n$/, '');
  add('the bytes received without their final newline', trimmed);
  add('the bytes received with a final newline added', `${text}\n`);
  add('the bytes received with a final CRLF added', `${text}\r\n`);

  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return variants;
  }
  for (const spacing of spacings) {
    for (const sortKeys of [false, true]) {
      let written: string;
      try {
        written = writeJson(value, spacing, sortKeys, '');
      } catch {
        // Nested deeper than any body of this API: no re-serialization of it is tried.
        return variants;
      }
      for (const { label, rewrite } of escapings) {
        const escaped = rewrite(written);
        const form = [spacing.label, sortKeys ? 'keys sorted' : '', label ?? '']
          .filter((part) => part !== '')
          .join(', ');
        add(form, escaped);
        add(`${form}, with a final newline`, `${escaped}\n`);
      }
    }
  }
  return variants;
}

/** `value` as JSON with `spacing`, its keys as parsed or sorted (by UTF-16 code units). */
function writeJson(
  value: unknown,
  spacing: Spacing,
  sortKeys: boolean,
  outer: string,
  depth = 0,
): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (depth === maxDepth) throw new RangeError(`nested deeper than ${maxDepth} levels`);
  const inner = outer + spacing.indent;
  const entries = Array.isArray(value)
    ? value.map((item) => writeJson(item, spacing, sortKeys, inner, depth + 1))
    : (sortKeys ? Object.keys(value).sort() : Object.keys(value)).map(
        (key) =>
          `${JSON.stringify(key)}${spacing.keySeparator}${writeJson(
            (value as Record<string, unknown>)[key],
            spacing,
            sortKeys,
            inner,
            depth + 1,
          )}`,
      );
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  if (entries.length === 0) return open + close;
  if (spacing.indent === '') return open + entries.join(spacing.itemSeparator) + close;
  return `${open}\n${inner}${entries.join(`${spacing.itemSeparator}\n${inner}`)}\n${outer}${close}`;
}
