/**
 * The same text in another charset: a body sent in ISO-8859-1 (Latin-1) where it was signed in
 * UTF-8, signed in ISO-8859-1 where it was sent in UTF-8, or encoded in UTF-8 twice (UTF-8 bytes
 * read as ISO-8859-1 and encoded again) on one side. A platform's default charset, an HTTP
 * client's, a PHP `utf8_encode`, or a proxy on the way each makes one of these; the signature is
 * then the HMAC of the text in one encoding and the body the text in another (body-variants.ts).
 *
 * @module
 */
import type { BodyVariant } from './diagnosis-common.js';

const utf8 = new TextEncoder();
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** The bytes of `text` in ISO-8859-1, or undefined when a character is beyond it. */
function latin1Bytes(text: string): Uint8Array<ArrayBuffer> | undefined {
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code > 0xff) return undefined;
    bytes[i] = code;
  }
  return bytes;
}

/** `bytes` read as ISO-8859-1: one character per byte. */
function latin1Text(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return text;
}

/** Windows-1252's characters for the bytes 0x80–0x9F, where it differs from ISO-8859-1. */
const windows1252 =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

/** `bytes` read as Windows-1252 (a Windows platform's default charset). */
function windows1252Text(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) {
    text +=
      byte >= 0x80 && byte <= 0x9f ? windows1252.charAt(byte - 0x80) : String.fromCharCode(byte);
  }
  return text;
}

/** The bytes of `text` in Windows-1252, or undefined when a character is beyond it. */
function windows1252Bytes(text: string): Uint8Array<ArrayBuffer> | undefined {
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const high = windows1252.indexOf(text.charAt(i));
    if (code <= 0xff && (code < 0x80 || code > 0x9f)) bytes[i] = code;
    else if (high >= 0) bytes[i] = 0x80 + high;
    else return undefined;
  }
  return bytes;
}

/** The first character beyond ASCII of `text`, and how it is written in `bytes` (`0xE9`). */
function firstNonAscii(text: string): string | undefined {
  return /[\u0080-\uffff]/.exec(text)?.[0];
}

const hexBytes = (bytes: Uint8Array) =>
  [...bytes].map((byte) => `0x${byte.toString(16).toUpperCase().padStart(2, '0')}`).join(' ');

/**
 * The charset variants of `received` (`text` is it decoded as UTF-8, when it is UTF-8), at most
 * two, none for a body all ASCII.
 */
export function* charsetVariants(
  received: Uint8Array,
  text: string | undefined,
): Generator<BodyVariant> {
  if (text === undefined) {
    // Not UTF-8: the text in ISO-8859-1 (or Windows-1252), signed in UTF-8.
    for (const [decoded, charset] of [
      [latin1Text(received), 'ISO-8859-1 (Latin-1)'],
      [windows1252Text(received), 'Windows-1252'],
    ] as const) {
      if (charset === 'Windows-1252' && !received.some((byte) => byte >= 0x80 && byte <= 0x9f))
        break;
      const char = firstNonAscii(decoded) ?? '';
      const bytes = utf8.encode(decoded);
      yield {
        form: `the text in UTF-8, received in ${charset}`,
        bytes,
        signed: `this body's text in UTF-8 (${bytes.length} bytes)`,
        advice:
          `The ${received.length} bytes received are that text in ${charset}: ${char} arrived as the single byte ${hexBytes((charset === 'Windows-1252' ? windows1252Bytes(char) : latin1Bytes(char)) ?? new Uint8Array())}. ` +
          "The body is UTF-8, as you signed it: send it so (not in the platform's default charset, as an OutputStreamWriter without a charset, Python's http.client with a str body or a write in 'latin1' do); if your code does, a proxy or gateway on the way re-encoded the body.",
      };
    }
    return;
  }
  const char = firstNonAscii(text);
  if (char === undefined) return;
  const once = latin1Bytes(text);
  let decodedOnce: string | undefined;
  if (once) {
    try {
      decodedOnce = strictUtf8.decode(once);
    } catch {
      decodedOnce = undefined;
    }
  }
  if (once && decodedOnce !== undefined && decodedOnce !== text) {
    // The body received is UTF-8 encoded twice: signed once.
    const example = firstNonAscii(decodedOnce) ?? '';
    yield {
      form: 'the text in UTF-8 once, received encoded twice',
      bytes: once,
      signed: `this body encoded in UTF-8 once (${once.length} bytes)`,
      advice:
        `The ${received.length} bytes received are UTF-8 encoded twice: ${example} arrived as ${utf8ReadAsLatin1(example)}, its UTF-8 bytes read as ISO-8859-1 and encoded as UTF-8 again. ` +
        'Send the UTF-8 bytes you signed, encoded once (no utf8_encode or re-encoding of a text that is UTF-8 already); if your code does, a proxy or gateway on the way encoded the body again.',
    };
  } else {
    const platform = once ?? windows1252Bytes(text);
    const charset = once ? 'ISO-8859-1 (Latin-1)' : 'Windows-1252';
    const single = once ? latin1Bytes(char) : windows1252Bytes(char);
    if (platform) {
      yield {
        form: `the text in ${charset}, received in UTF-8`,
        bytes: platform,
        signed: `this body's text in ${charset} (${platform.length} bytes, ${char} as the single byte ${hexBytes(single ?? new Uint8Array())})`,
        advice:
          "The body received is UTF-8, as it must be, but it was signed in the platform's default charset (String.getBytes() without a charset, a write in 'latin1'). Sign the UTF-8 bytes you send; if your code sent the bytes it signed, a proxy or gateway on the way re-encoded them as UTF-8.",
      };
    }
  }
  const twice = utf8.encode(latin1Text(received));
  yield {
    form: 'the text encoded in UTF-8 twice',
    bytes: twice,
    signed: `this body encoded in UTF-8 twice (${char} as ${utf8ReadAsLatin1(char)}: ${twice.length} bytes)`,
    advice:
      'The text was encoded again before it was signed (utf8_encode or an encode of a text that was UTF-8 already). Sign the UTF-8 bytes you send, encoded once.',
  };
}

/** How `char` looks once its UTF-8 bytes are read as ISO-8859-1 (`é` → `Ã©`). */
function utf8ReadAsLatin1(char: string): string {
  return latin1Text(utf8.encode(char));
}
