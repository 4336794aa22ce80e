/**
 * The canonical text of structured field values (RFC 8941 §4.1), exactly as `structured-headers`
 * serializes them, for the values a verifier meets on every request: an inner list of component
 * names and its parameters (`created`, `nonce`, `keyid`, `alg`). A signature base ends with the
 * `Signature-Input` member serialized again (RFC 9421 §2.3), and `structured-headers`' general
 * serializer, which checks every key and string with a regular expression and escapes through a
 * callback, was the largest single cost of checking a message signature in a profile of the
 * reference server. Here an integer (in range) and an ASCII string without `"` or `\` are written
 * directly, and every other value, and a key not seen valid before, goes through
 * `structured-headers` itself, so the text (or the error) is always the one it gives.
 *
 * @module
 */
import {
  type BareItem,
  type InnerList,
  type Item,
  type Parameters,
  serializeInnerList,
  serializeItem,
} from 'structured-headers';

/** Keys `structured-headers` has serialized without an error: valid keys, as it checks them. */
const validKeys = new Set<string>();

/** The largest magnitude of an integer (RFC 8941 §3.3.1). */
const maxInteger = 999_999_999_999_999;

/** Printable ASCII with no `"` or `\`: a string written between quotes as it is (§4.1.6). */
function isPlainString(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code > 0x7e || code === 0x22 || code === 0x5c) return false;
  }
  return true;
}

/** A bare item's text, or undefined when it is not one written here. */
function plainBareItemText(value: BareItem): string | undefined {
  if (typeof value === 'string') return isPlainString(value) ? `"${value}"` : undefined;
  if (typeof value === 'number' && Number.isInteger(value) && Math.abs(value) <= maxInteger) {
    return String(value);
  }
  return undefined;
}

/** `;key=value…` of `params`, as `serializeParameters` writes it. */
function parametersText(params: Parameters): string {
  let text = '';
  for (const [key, value] of params) {
    const plain = validKeys.has(key) ? plainBareItemText(value) : undefined;
    if (plain !== undefined) {
      text += `;${key}=${plain}`;
      continue;
    }
    // An empty inner list's text is `()` and then its parameters'.
    text += serializeInnerList([[], new Map([[key, value]])]).slice(2);
    validKeys.add(key);
  }
  return text;
}

/** {@link serializeItem} of `item`: its bare item, then its parameters. */
export function itemText(item: Item): string {
  const bare = plainBareItemText(item[0]);
  return bare === undefined ? serializeItem(item) : bare + parametersText(item[1]);
}

/** {@link serializeInnerList} of `innerList`: `(item item…)` then its parameters. */
export function innerListText(innerList: InnerList): string {
  let text = '(';
  const items = innerList[0];
  for (let i = 0; i < items.length; i++) {
    if (i > 0) text += ' ';
    text += itemText(items[i] as Item);
  }
  return `${text})${parametersText(innerList[1])}`;
}
