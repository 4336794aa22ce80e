/**
 * The other bytes a sender may have signed instead of those it sent, most likely first: the
 * bytes with a final newline added or dropped; the same text in another charset; the same JSON
 * written in another style (json-text.ts: another layout, member order, string escapes or number
 * spellings, one dimension at a time, then as the serializers of the usual languages write it by
 * default, then two dimensions at a time); and other bytes signers sign by mistake (nothing, a
 * template's "[object Object]", the JSON in a JSON string, Python's `str()` of a dict, the method
 * and path before the body, the body before a member was added). A diagnosis
 * (signature-diagnosis.ts) tries each, so that a sandbox can say which (spec:
 * `SignatureDiagnosis`, cause `body-bytes-differ`).
 *
 * @module
 */
import { charsetVariants } from './charset-variants.js';
import { DiagnosisSpending, maxBodyBytes } from './diagnosis-budget.js';
import type { BodyVariant } from './diagnosis-common.js';
import {
  type JsonNode,
  type JsonStyle,
  type Layout,
  type MemberOrder,
  type NumberStyle,
  readJsonText,
  type StringStyle,
  stringTraits,
  type WrittenJson,
  withoutMember,
  writeJsonText,
} from './json-text.js';
import { pythonRepr } from './python-repr.js';

export type { BodyVariant } from './diagnosis-common.js';

/** What a diagnosis knows of the request beside its body. */
export interface BodyContext {
  method?: string;
  path?: string;
  /** Orders of the members in the API's documented bodies (its examples). */
  documentedKeyOrders?: readonly (readonly string[])[] | undefined;
  /** The SHA-256 of the bytes received, in lowercase hex (what some APIs sign instead). */
  sha256Hex?: string;
}

const layoutWords: Record<Layout, string> = {
  compact: 'compact',
  python: "with a space after each ',' and ':' (Python's json.dumps)",
  pretty2: 'pretty-printed with 2 spaces',
  pretty4: 'pretty-printed with 4 spaces',
  tabs: 'pretty-printed with tabs',
  jackson: 'pretty-printed as Jackson writes it ("key" : value)',
};

const stringWords: Record<Exclude<StringStyle, 'raw' | 'plain'>, string> = {
  ascii: 'non-ASCII written as \\uXXXX',
  'ascii-upper': 'non-ASCII written as \\uXXXX in uppercase hex (\\u00E9)',
  slash: "'/' written as '\\/'",
  php: "non-ASCII written as \\uXXXX and '/' as '\\/' (PHP's json_encode)",
  go: "'<', '>' and '&' written as \\u003c, \\u003e and \\u0026 (Go's encoding/json)",
  gson: "'<', '>', '&', '=' and ''' written as \\u003c, \\u003e, \\u0026, \\u003d and \\u0027 (Gson)",
};

/** The styles of the usual serializers' defaults: [layout, strings, numbers]. */
const serializerDefaults: readonly [Layout, StringStyle, NumberStyle][] = [
  ['compact', 'plain', 'shortest'], // JavaScript, Go without HTML characters
  ['python', 'ascii', 'shortest'], // Python json.dumps
  ['python', 'ascii', 'float'], // … of a float
  ['compact', 'php', 'shortest'], // PHP json_encode
  ['pretty2', 'plain', 'shortest'], // JSON.stringify(value, null, 2)
  ['pretty4', 'php', 'shortest'], // PHP JSON_PRETTY_PRINT
  ['compact', 'go', 'shortest'], // Go encoding/json
  ['compact', 'plain', 'float'], // Jackson, of a double
  ['compact', 'gson', 'float'], // Gson
  ['python', 'plain', 'shortest'], // Python ensure_ascii=False
  ['compact', 'ascii', 'shortest'], // Python separators=(',', ':'); PHP JSON_UNESCAPED_SLASHES
  ['compact', 'slash', 'shortest'], // PHP JSON_UNESCAPED_UNICODE
  ['compact', 'php', 'float'], // PHP JSON_PRESERVE_ZERO_FRACTION
  ['pretty2', 'ascii', 'shortest'], // Python indent=2
  ['pretty4', 'ascii', 'shortest'], // Python indent=4
  ['pretty2', 'go', 'shortest'], // Go MarshalIndent
  ['jackson', 'plain', 'float'], // Jackson's pretty printer
];

const utf8 = new TextEncoder();
// A byte order mark is kept in the text: a variant drops it, or adds one.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

const reSign =
  'Sign the exact bytes you send, and send the exact bytes you signed; if your code does, something on the way (a proxy, a gateway, an HTTP client) rewrote the body after it was signed.';

/**
 * Every distinct candidate for the bytes signed instead of `received`, each at most once and
 * never the received bytes themselves, most likely first, as long as `spending` allows
 * (diagnosis-budget.ts; it records which bound stopped them). Made one at a time as they are
 * asked for, so that a diagnosis that finds its cause early writes no more. None but the charset
 * ones for a body that is not UTF-8; none for one over 16 KiB; none of its JSON for one nested
 * deeper than the budget's depth or holding more values than its count. A string is escaped only
 * where the style is about the JSON text: the value is always the one received.
 */
export function* bodyVariants(
  received: Uint8Array,
  spending: DiagnosisSpending = new DiagnosisSpending(),
  context: BodyContext = {},
): Generator<BodyVariant> {
  if (received.length > maxBodyBytes) {
    spending.stop('size');
    return;
  }
  const seen = new Map<number, string[]>();
  const taken = (candidate: string, bytes: Uint8Array) => {
    const sameLength = seen.get(candidate.length);
    if (sameLength?.includes(candidate)) return false;
    if (sameLength) sameLength.push(candidate);
    else seen.set(candidate.length, [candidate]);
    return spending.take(bytes.length);
  };
  let text: string | undefined;
  try {
    text = strictUtf8.decode(received);
    seen.set(text.length, [text]);
  } catch {
    text = undefined;
  }
  const charsets = function* () {
    for (const variant of charsetVariants(received, text)) {
      // Keyed by a text no body is: charset variants are bytes, not texts of the body.
      if (taken(`\u0000charset:${variant.form}`, variant.bytes)) yield variant;
      if (spending.limit) return;
    }
  };
  if (text === undefined) {
    yield* charsets();
    return;
  }
  /** The variant of `candidate` text, when it is new and the budget allows it. */
  const variant = (candidate: string, form: string, signed: string, advice = reSign) => {
    const bytes = utf8.encode(candidate);
    return taken(candidate, bytes) ? { form, bytes, signed, advice } : undefined;
  };
  const textReceived = text;
  const bom = textReceived.startsWith('\ufeff');
  yield* each(edgeMakers(textReceived, bom, variant), spending);
  if (spending.limit) return;
  yield* charsets();
  if (spending.limit) return;

  const jsonText = bom ? textReceived.slice(1) : textReceived;
  try {
    JSON.parse(jsonText);
  } catch {
    return;
  }
  const tooLarge = shapeBeyond(jsonText, spending.budget.maxDepth, spending.budget.maxValues);
  if (tooLarge) {
    spending.stop(tooLarge);
    return;
  }
  const node = readJsonText(jsonText);
  const json = new JsonStyles(node, jsonText, context.documentedKeyOrders ?? []);
  /** The variant of `node` written in `style`; undefined when written so already. */
  const styled =
    (style: JsonStyle, newline = false) =>
    () => {
      const written = writeJsonText(json.node, style, spending.bytesLeft);
      if (written === undefined) {
        spending.stop('bytes');
        return undefined;
      }
      const form = json.describe(style, written, newline);
      const candidate = newline ? `${written.text}\n` : written.text;
      const bytes = utf8.encode(candidate);
      return taken(candidate, bytes)
        ? {
            form,
            bytes,
            signed: `the same JSON written otherwise (${form}: ${bytes.length} bytes)`,
            advice: reSign,
          }
        : undefined;
    };
  yield* each(
    json.oneChange().map((style) => styled(style)),
    spending,
  );
  if (spending.limit) return;
  yield* each(
    [...otherBytes(node, jsonText, context)].map(
      (candidate) => () =>
        variant(candidate.text, candidate.form, candidate.signed, candidate.advice),
    ),
    spending,
  );
  if (spending.limit) return;
  yield* each(
    json.serializerDefaults().map((style) => styled(style)),
    spending,
  );
  if (spending.limit) return;
  yield* each(
    [
      styled(json.style('compact', 'go', 'shortest'), true),
      styled(json.style('compact', 'plain', 'shortest'), true),
    ],
    spending,
  );
  if (spending.limit) return;
  yield* each(
    json.twoChanges().map((style) => styled(style)),
    spending,
  );
  if (spending.limit) return;
  yield* each(
    [...laterGuesses(node, json)].map(
      (candidate) => () =>
        variant(candidate.text, candidate.form, candidate.signed, candidate.advice),
    ),
    spending,
  );
}

/**
 * The makers of the received text's edge variants, most likely first: without or with a final
 * newline, with a final CRLF, and without or with a byte order mark.
 */
function edgeMakers(
  textReceived: string,
  bom: boolean,
  variant: (candidate: string, form: string, signed: string) => BodyVariant | undefined,
): (() => BodyVariant | undefined)[] {
  return [
    () =>
      variant(
        textReceived.replace(/\r?\n$/, ''),
        'without the final newline',
        'the bytes received without their final newline',
      ),
    () =>
      variant(
        `${textReceived}\n`,
        'with a final newline',
        'the bytes received with a final newline added',
      ),
    () =>
      variant(
        `${textReceived}\r\n`,
        'with a final CRLF',
        'the bytes received with a final CRLF added',
      ),
    () =>
      bom
        ? variant(
            textReceived.slice(1),
            'without its byte order mark',
            'the bytes received without their byte order mark (EF BB BF)',
          )
        : variant(
            `\ufeff${textReceived}`,
            'with a byte order mark',
            'the bytes received with a byte order mark (EF BB BF) before them',
          ),
  ];
}

/** The variants `makers` make, one by one, until the budget is spent. */
function* each(
  makers: Iterable<() => BodyVariant | undefined>,
  spending: DiagnosisSpending,
): Generator<BodyVariant> {
  for (const make of makers) {
    const made = make();
    if (made) yield made;
    if (spending.limit) return;
  }
}

/** The styles to try for one JSON body, and how a style differs from the body's, in words. */
class JsonStyles {
  readonly received: JsonStyle;
  /** The received text's layout, when it is one of the known ones. */
  readonly receivedLayout: Layout | undefined;
  private readonly traits: ReturnType<typeof stringTraits>;
  private readonly orders: MemberOrder[];
  private readonly hasNumbers: boolean;

  constructor(
    readonly node: JsonNode,
    text: string,
    documented: readonly (readonly string[])[],
  ) {
    const bare = text.replace(/\r?\n$/, '');
    const layouts: Layout[] = ['compact', 'python', 'pretty2', 'pretty4', 'tabs', 'jackson'];
    this.receivedLayout = layouts.find(
      (layout) =>
        writeJsonText(
          node,
          { layout, order: { kind: 'received' }, strings: 'raw', numbers: 'raw' },
          bare.length,
        )?.text === bare,
    );
    this.received = {
      layout: this.receivedLayout ?? 'compact',
      order: { kind: 'received' },
      strings: 'raw',
      numbers: 'raw',
    };
    this.traits = stringTraits(node);
    this.orders = [
      { kind: 'sorted' },
      ...documented.map((keys) => ({ kind: 'documented' as const, keys })),
    ];
    this.hasNumbers = /[0-9]/.test(text) && hasNumber(node);
  }

  style(
    layout: Layout,
    strings: StringStyle,
    numbers: NumberStyle,
    order?: MemberOrder,
  ): JsonStyle {
    return { layout, strings, numbers, order: order ?? { kind: 'received' } };
  }

  /** The string styles that would change something of this body. */
  private stringStyles(): StringStyle[] {
    const { nonAscii, slash, html, gsonOnly, escapes } = this.traits;
    const styles: StringStyle[] = [];
    if (escapes.length > 0) styles.push('plain');
    if (nonAscii) styles.push('ascii');
    if (slash) styles.push('slash');
    if (nonAscii || slash) styles.push('php');
    if (html) styles.push('go');
    if (html || gsonOnly) styles.push('gson');
    if (nonAscii) styles.push('ascii-upper');
    return styles;
  }

  private numberStyles(): NumberStyle[] {
    return this.hasNumbers ? ['shortest', 'float', 'fixed2'] : [];
  }

  private layouts(): Layout[] {
    const all: Layout[] = ['compact', 'python', 'pretty2', 'pretty4', 'jackson', 'tabs'];
    return all.filter((layout) => layout !== this.receivedLayout);
  }

  /** The body with one dimension changed: its layout, its strings, its numbers or its order. */
  oneChange(): JsonStyle[] {
    const r = this.received;
    return [
      ...this.layouts().map((layout) => ({ ...r, layout })),
      ...this.stringStyles().map((strings) => ({ ...r, strings })),
      ...this.numberStyles().map((numbers) => ({ ...r, numbers })),
      ...this.orders.map((order) => ({ ...r, order })),
    ];
  }

  /** The body as the usual serializers write it by default, in each order. */
  serializerDefaults(): JsonStyle[] {
    const orders: MemberOrder[] = [{ kind: 'received' }, ...this.orders];
    return orders.flatMap((order) =>
      serializerDefaults.map(([layout, strings, numbers]) =>
        this.style(layout, strings, numbers, order),
      ),
    );
  }

  /**
   * The body with its layout and one other dimension changed: the layouts the usual serializers
   * write, with any string style, number spelling or order; Jackson's and tabs with another
   * number spelling or order only (none of their writers escapes otherwise).
   */
  twoChanges(): JsonStyle[] {
    const r = this.received;
    const common: Layout[] = ['compact', 'python', 'pretty2', 'pretty4'];
    return this.layouts().flatMap((layout) => [
      ...(common.includes(layout) ? this.stringStyles() : []).map((strings) => ({
        ...r,
        layout,
        strings,
      })),
      ...(layout === 'tabs' ? [] : this.numberStyles()).map((numbers) => ({
        ...r,
        layout,
        numbers,
      })),
      ...this.orders.map((order) => ({ ...r, layout, order })),
    ]);
  }

  /** How `written` (in `style`) differs from the body received, in words. */
  describe(style: JsonStyle, written: WrittenJson, newline: boolean): string {
    const parts: string[] = [];
    if (style.layout !== this.receivedLayout) parts.push(layoutWords[style.layout]);
    if (written.orderChanged) {
      parts.push(
        style.order.kind === 'sorted'
          ? 'keys sorted'
          : "keys in the order of the API's examples (received in another order)",
      );
    }
    if (written.stringsChanged) {
      parts.push(
        style.strings === 'plain' || style.strings === 'raw'
          ? `strings without the escapes received (${this.traits.escapes.join(', ')})`
          : stringWords[style.strings],
      );
    }
    if (written.numberChanged) {
      parts.push(
        `${written.numberChanged.written} where the bytes received have ${written.numberChanged.received}`,
      );
    }
    if (newline) parts.push('with a final newline');
    return parts.join(', ');
  }
}

function hasNumber(node: JsonNode): boolean {
  if (node.kind === 'number') return true;
  if (node.kind === 'object') return node.members.some(({ value }) => hasNumber(value));
  if (node.kind === 'array') return node.items.some(hasNumber);
  return false;
}

/** A guess at other bytes signed, with its words. */
interface Guess {
  text: string;
  form: string;
  signed: string;
  advice: string;
}

/** Other bytes than a serialization of the body, the cheap and common ones. */
function* otherBytes(node: JsonNode, text: string, context: BodyContext): Generator<Guess> {
  yield {
    text: '',
    form: 'no bytes',
    signed: 'no bytes at all (an empty body)',
    advice:
      'The signature was made before the body was set: sign the body you send, once it is complete.',
  };
  yield {
    text: '[object Object]',
    form: '"[object Object]"',
    signed: 'the text "[object Object]"',
    advice:
      'An object was turned into text by a template or a string concatenation, not by JSON.stringify: sign the JSON text you send.',
  };
  if (node.kind === 'string') {
    try {
      JSON.parse(node.value);
      yield {
        text: node.value,
        form: 'the JSON inside the JSON string received',
        signed: 'the JSON text that the body received holds as a JSON string',
        advice:
          'The body was serialized twice (JSON.stringify of a text that was JSON already): send the JSON text you signed, serialized once.',
      };
    } catch {
      // Not JSON inside.
    }
  }
  const repr = pythonRepr(node);
  if (repr !== undefined && repr !== text) {
    yield {
      text: repr,
      form: "Python's str() of the value",
      signed: "Python's str() of the payload (single quotes, True, None), not JSON",
      advice:
        'Sign the JSON text you send (the bytes of json.dumps(...) that go in the request), not str(payload).',
    };
  }
  if (context.method && context.path) {
    yield* methodAndPath(text, context.method, context.path);
  }
  const bodyInstead =
    'The Authorization signature is the HMAC of the body itself, its exact bytes, not of an encoding or a hash of them.';
  yield {
    text: btoa(String.fromCharCode(...utf8.encode(text))),
    form: 'the body in base64',
    signed: 'the body in base64',
    advice: bodyInstead,
  };
  if (context.sha256Hex) {
    yield {
      text: context.sha256Hex,
      form: "the body's SHA-256, in hex",
      signed: "the body's SHA-256, in hex (a hash of the payload, as other APIs sign)",
      advice: bodyInstead,
    };
  }
}

/** The guesses tried last: each top-level member left out. */
function* laterGuesses(node: JsonNode, json: JsonStyles): Generator<Guess> {
  if (node.kind !== 'object') return;
  for (let i = 0; i < node.members.length && i < 40; i++) {
    const member = node.members[i];
    if (!member) continue;
    const written = writeJsonText(withoutMember(node, i), json.received, Number.MAX_SAFE_INTEGER);
    if (written === undefined) continue;
    const name =
      member.key.value.length <= 64 ? member.key.value : `${member.key.value.slice(0, 64)}…`;
    yield {
      text: written.text,
      form: `without its member "${name}"`,
      signed: `the body without its member "${name}"`,
      advice: `"${name}" was added to the body, or changed, after the body was signed: sign the body as you send it, once it is complete.`,
    };
  }
}

/** The method and path joined to the body, as some signers of other APIs do. */
function* methodAndPath(text: string, method: string, path: string): Generator<Guess> {
  const forms: [string, string][] = [
    [`${method}\n${path}\n${text}`, 'the method, the path and the body, each on a line'],
    [`${method}${path}${text}`, 'the method, the path and the body, joined'],
    [`${method} ${path}\n${text}`, 'the request line and the body'],
    [`${path}${text}`, 'the path and the body, joined'],
    [`${path}\n${text}`, 'the path and the body, each on a line'],
    [path, 'the path alone'],
    [`${method} ${path}`, 'the method and the path alone'],
  ];
  for (const [candidate, form] of forms) {
    yield {
      text: candidate,
      form,
      signed: form,
      advice:
        'The Authorization signature is the HMAC of the body alone; the method and the path are covered by the RFC 9421 message signature (@method, @path).',
    };
  }
}

/**
 * Which bound of the budget a body's JSON goes beyond, if any: nested deeper than `maxDepth`
 * (objects and arrays in one another), or more than `maxValues` values in all, counted on the
 * text without parsing it, so it costs no more than one pass.
 */
function shapeBeyond(
  text: string,
  maxDepth: number,
  maxValues: number,
): 'depth' | 'values' | undefined {
  let depth = 0;
  let values = 1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === 0x5c) i++;
      else if (char === 0x22) inString = false;
      continue;
    }
    if (char === 0x22) inString = true;
    else if (char === 0x7b || char === 0x5b) {
      depth += 1;
      if (depth > maxDepth) return 'depth';
    } else if (char === 0x7d || char === 0x5d) depth -= 1;
    else if (char === 0x2c || char === 0x3a) {
      values += 1;
      if (values > maxValues) return 'values';
    }
  }
  return undefined;
}
