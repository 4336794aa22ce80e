/**
 * A JSON text read with its lexemes kept (each string's escapes, each number's spelling, the
 * members' order), and written out again in another style: another layout, order, string escapes
 * or number spellings, one dimension at a time or several, as the serializers of the usual
 * languages write it. A diagnosis (body-variants.ts) writes a body received in the styles a
 * signer may have signed it in: `2500.0` stays `2500.0` unless the style changes numbers, which
 * `JSON.parse` and `JSON.stringify` alone cannot do.
 *
 * @module
 */

/** A JSON value, as written in the text it was read from. */
export type JsonNode =
  | { kind: 'object'; members: { key: JsonString; value: JsonNode }[] }
  | { kind: 'array'; items: JsonNode[] }
  | JsonString
  | { kind: 'number'; raw: string; value: number }
  | { kind: 'literal'; raw: 'true' | 'false' | 'null' };

/** A string: its token as written (quotes included), and its value. */
export interface JsonString {
  kind: 'string';
  raw: string;
  value: string;
}

/**
 * Reads `text`, which `JSON.parse` has accepted (so every lexeme is well formed), keeping each
 * lexeme as written. Called only on a text within the diagnosis's bounds of size and shape.
 */
export function readJsonText(text: string): JsonNode {
  let at = 0;
  const space = () => {
    while (at < text.length && ' \t\n\r'.includes(text.charAt(at))) at++;
  };
  const string = (): JsonString => {
    const start = at++;
    while (text.charAt(at) !== '"') at += text.charAt(at) === '\\' ? 2 : 1;
    at++;
    const raw = text.slice(start, at);
    return { kind: 'string', raw, value: JSON.parse(raw) as string };
  };
  const value = (): JsonNode => {
    space();
    const char = text.charAt(at);
    if (char === '{') {
      at++;
      const members: { key: JsonString; value: JsonNode }[] = [];
      space();
      if (text.charAt(at) === '}') at++;
      else {
        for (;;) {
          space();
          const key = string();
          space();
          at++; // ':'
          members.push({ key, value: value() });
          space();
          if (text.charAt(at++) === '}') break;
        }
      }
      return { kind: 'object', members };
    }
    if (char === '[') {
      at++;
      const items: JsonNode[] = [];
      space();
      if (text.charAt(at) === ']') at++;
      else {
        for (;;) {
          items.push(value());
          space();
          if (text.charAt(at++) === ']') break;
        }
      }
      return { kind: 'array', items };
    }
    if (char === '"') return string();
    const literal = /^(?:true|false|null)/.exec(text.slice(at, at + 5))?.[0];
    if (literal) {
      at += literal.length;
      return { kind: 'literal', raw: literal as 'true' | 'false' | 'null' };
    }
    const raw = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(at))?.[0] ?? '';
    at += raw.length;
    return { kind: 'number', raw, value: Number(raw) };
  };
  return value();
}

/** How a serializer lays out the text between tokens. */
export type Layout = 'compact' | 'python' | 'pretty2' | 'pretty4' | 'tabs' | 'jackson';

/** In which order an object's members are written. */
export type MemberOrder =
  | { kind: 'received' }
  | { kind: 'sorted' }
  /** The keys listed first, in this order (at every level); the others after, as received. */
  | { kind: 'documented'; keys: readonly string[] };

/** How strings (keys too) are written: as received, or escaped as a serializer does. */
export type StringStyle =
  | 'raw'
  | 'plain'
  | 'ascii'
  | 'ascii-upper'
  | 'slash'
  | 'php'
  | 'go'
  | 'gson';

/** How numbers are written: as received, or as a language writes its numbers. */
export type NumberStyle = 'raw' | 'shortest' | 'float' | 'fixed2';

/** A way of writing a JSON value. */
export interface JsonStyle {
  layout: Layout;
  order: MemberOrder;
  strings: StringStyle;
  numbers: NumberStyle;
}

const hex4 = (unit: number, upper = false) => {
  const digits = unit.toString(16).padStart(4, '0');
  return `\\u${upper ? digits.toUpperCase() : digits}`;
};
const nonAscii = /[\u0080-\uffff]/g;

/** Each string style, from a string's value (or its token, for `raw`). */
const stringWriters: Record<StringStyle, (node: JsonString) => string> = {
  raw: (node) => node.raw,
  plain: (node) => JSON.stringify(node.value),
  ascii: (node) => JSON.stringify(node.value).replace(nonAscii, (c) => hex4(c.charCodeAt(0))),
  'ascii-upper': (node) =>
    JSON.stringify(node.value).replace(nonAscii, (c) => hex4(c.charCodeAt(0), true)),
  slash: (node) => JSON.stringify(node.value).replaceAll('/', '\\/'),
  php: (node) =>
    JSON.stringify(node.value)
      .replace(nonAscii, (c) => hex4(c.charCodeAt(0)))
      .replaceAll('/', '\\/'),
  go: (node) =>
    JSON.stringify(node.value).replace(/[<>&\u2028\u2029]/g, (c) => hex4(c.charCodeAt(0))),
  gson: (node) =>
    JSON.stringify(node.value).replace(/[<>&='\u2028\u2029]/g, (c) => hex4(c.charCodeAt(0))),
};

/** Each string's text in each style, written once: a body is written in many styles. */
const writtenStrings = new WeakMap<JsonString, Map<StringStyle, string>>();

function writtenString(item: JsonString, style: StringStyle): string {
  if (style === 'raw') return item.raw;
  let styles = writtenStrings.get(item);
  if (styles === undefined) {
    styles = new Map();
    writtenStrings.set(item, styles);
  }
  let written = styles.get(style);
  if (written === undefined) {
    written = stringWriters[style](item);
    styles.set(style, written);
  }
  return written;
}

/** Each number style, from a number's token and value. */
const numberWriters: Record<NumberStyle, (raw: string, value: number) => string> = {
  raw: (raw) => raw,
  shortest: (raw, value) => (Number.isFinite(value) ? String(value) : raw),
  float: (raw, value) =>
    Number.isInteger(value) && Math.abs(value) < 1e16
      ? `${value}.0`
      : numberWriters.shortest(raw, value),
  fixed2: (raw, value) => (Math.abs(value) < 1e15 ? value.toFixed(2) : raw),
};

/** What a written text changed from the text read, by dimension, and the first number changed. */
export interface WrittenJson {
  text: string;
  orderChanged: boolean;
  stringsChanged: boolean;
  /** The first number written otherwise: as received, and as written. */
  numberChanged?: { received: string; written: string };
}

/** Thrown past the writer's limit. */
const tooLong = Symbol('too long');

/**
 * `node` written in `style`; undefined as soon as the text would be longer than `limit` UTF-16
 * code units, so that nothing longer is ever written.
 */
export function writeJsonText(
  node: JsonNode,
  style: JsonStyle,
  limit: number,
): WrittenJson | undefined {
  const parts: string[] = [];
  let length = 0;
  const result: Omit<WrittenJson, 'text'> = { orderChanged: false, stringsChanged: false };
  const put = (part: string) => {
    length += part.length;
    if (length > limit) throw tooLong;
    parts.push(part);
  };
  const writeString = (item: JsonString) => {
    const written = writtenString(item, style.strings);
    if (written !== item.raw) result.stringsChanged = true;
    put(written);
  };
  const { layout } = style;
  const indent = {
    compact: '',
    python: '',
    pretty2: '  ',
    pretty4: '    ',
    tabs: '\t',
    jackson: '  ',
  }[layout];
  const keySeparator = layout === 'compact' ? ':' : layout === 'jackson' ? ' : ' : ': ';
  const write = (item: JsonNode, outer: string): void => {
    switch (item.kind) {
      case 'string':
        writeString(item);
        return;
      case 'literal':
        put(item.raw);
        return;
      case 'number': {
        const written = numberWriters[style.numbers](item.raw, item.value);
        if (written !== item.raw) result.numberChanged ??= { received: item.raw, written };
        put(written);
        return;
      }
      case 'array': {
        if (item.items.length === 0) {
          put(layout === 'jackson' ? '[ ]' : '[]');
          return;
        }
        const inline = layout === 'compact' || layout === 'python' || layout === 'jackson';
        const separator = layout === 'compact' ? ',' : inline ? ', ' : ',';
        const inner = outer + indent;
        put(layout === 'jackson' ? '[ ' : '[');
        item.items.forEach((value, i) => {
          if (i > 0) put(separator);
          if (!inline) put(`\n${inner}`);
          write(value, layout === 'jackson' ? outer : inner);
        });
        put(inline ? (layout === 'jackson' ? ' ]' : ']') : `\n${outer}]`);
        return;
      }
      case 'object': {
        if (item.members.length === 0) {
          put(layout === 'jackson' ? '{ }' : '{}');
          return;
        }
        const members = ordered(item.members, style.order);
        if (members !== item.members) result.orderChanged = true;
        const inline = layout === 'compact' || layout === 'python';
        const inner = outer + indent;
        put('{');
        members.forEach(({ key, value }, i) => {
          if (i > 0) put(layout === 'python' ? ', ' : ',');
          if (!inline) put(`\n${inner}`);
          writeString(key);
          put(keySeparator);
          write(value, inner);
        });
        put(inline ? '}' : `\n${outer}}`);
        return;
      }
    }
  };
  try {
    write(node, '');
  } catch (error) {
    if (error === tooLong) return undefined;
    throw error;
  }
  return { text: parts.join(''), ...result };
}

/** Each object's members in each order, sorted once: a body is written in many styles. */
const orderedMembers = new WeakMap<object, Map<MemberOrder, unknown[]>>();

/** The members in `order`: the same array when that is the order received. */
function ordered<T extends { key: JsonString }>(members: T[], order: MemberOrder): T[] {
  if (order.kind === 'received' || members.length < 2) return members;
  let orders = orderedMembers.get(members);
  if (orders === undefined) {
    orders = new Map();
    orderedMembers.set(members, orders);
  }
  const known = orders.get(order);
  if (known !== undefined) return known as T[];
  const result = sortMembers(members, order);
  orders.set(order, result);
  return result;
}

function sortMembers<T extends { key: JsonString }>(
  members: T[],
  order: Exclude<MemberOrder, { kind: 'received' }>,
): T[] {
  const rank =
    order.kind === 'sorted' ? undefined : new Map(order.keys.map((key, i) => [key, i] as const));
  const sorted = members
    .map((member, i) => ({ member, i }))
    .sort((a, b) => {
      if (rank === undefined) {
        return a.member.key.value < b.member.key.value
          ? -1
          : a.member.key.value > b.member.key.value
            ? 1
            : a.i - b.i;
      }
      const ra = rank.get(a.member.key.value) ?? Number.MAX_SAFE_INTEGER;
      const rb = rank.get(b.member.key.value) ?? Number.MAX_SAFE_INTEGER;
      return ra - rb || a.i - b.i;
    })
    .map(({ member }) => member);
  return sorted.every((member, i) => member === members[i]) ? members : sorted;
}

/** Which strings styles would change something in `node`, by what its strings hold. */
export function stringTraits(node: JsonNode): {
  nonAscii: boolean;
  slash: boolean;
  html: boolean;
  gsonOnly: boolean;
  escapes: string[];
} {
  const traits = { nonAscii: false, slash: false, html: false, gsonOnly: false };
  const escapes = new Set<string>();
  const visit = (item: JsonNode): void => {
    if (item.kind === 'string') {
      if (/[\u0080-\uffff]/.test(item.value)) traits.nonAscii = true;
      if (item.value.includes('/')) traits.slash = true;
      if (/[<>&]/.test(item.value)) traits.html = true;
      if (/[=']/.test(item.value)) traits.gsonOnly = true;
      for (const [sequence] of item.raw.matchAll(/\\(?:\/|u[0-9a-fA-F]{4})/g)) {
        if (escapes.size < 4) escapes.add(sequence === '\\/' ? "'\\/'" : sequence);
      }
    } else if (item.kind === 'object') {
      for (const { key, value } of item.members) {
        visit(key);
        visit(value);
      }
    } else if (item.kind === 'array') item.items.forEach(visit);
  };
  visit(node);
  return { ...traits, escapes: [...escapes] };
}

/** The top-level members of an object node, for a text with one of them left out. */
export function withoutMember(node: JsonNode, index: number): JsonNode {
  if (node.kind !== 'object') return node;
  return { kind: 'object', members: node.members.filter((_, i) => i !== index) };
}
