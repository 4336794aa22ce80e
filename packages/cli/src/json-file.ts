/**
 * Reading a user file for `create` and `update`, with errors that say where the file is broken
 * and how: not UTF-8 (the bytes cannot be decoded), or not JSON (the text does not parse), with
 * the line and column of the first problem.
 *
 * @module
 */
import jsonc from 'jsonc-parser';

/** Where a problem is in a text: 1-based line and column (in UTF-16 code units, as editors count). */
export interface TextPosition {
  line: number;
  column: number;
}

/** A file that is not UTF-8 JSON; the message names the file, what failed and where. */
export class JsonFileError extends Error {
  override readonly name = 'JsonFileError';
}

/**
 * Decodes `bytes` as UTF-8 (a leading byte order mark is dropped) and parses them as JSON.
 * `JSON.parse` decides what is valid; its message says why, and usually where. Where it does
 * not ("Unexpected token"), the first error offset of jsonc-parser's scanner (in strict JSON
 * mode) gives the place.
 */
export function parseJsonFile(bytes: Uint8Array, path: string): unknown {
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  const invalid = firstUndecodable(text, bytes);
  if (invalid !== undefined) {
    const { line, column } = positionOf(text, invalid.index);
    const byte = `0x${(bytes[invalid.byteOffset] ?? 0).toString(16).toUpperCase().padStart(2, '0')}`;
    throw new JsonFileError(
      `${path} is not valid UTF-8: byte ${byte} at line ${line}, column ${column} (byte offset ${invalid.byteOffset}) is not UTF-8; save the file as UTF-8`,
    );
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    const { line, column } = positionOf(text, offsetOf(message, text));
    throw new JsonFileError(
      `${path} is not valid JSON: line ${line}, column ${column}: ${reason(message)}`,
    );
  }
}

/**
 * The first character the decoder replaced because the bytes were not UTF-8, and its byte
 * offset. A U+FFFD that is in the file as its own three bytes (EF BF BD) is real text.
 */
function firstUndecodable(
  text: string,
  bytes: Uint8Array,
): { index: number; byteOffset: number } | undefined {
  const encoder = new TextEncoder();
  // The decoder drops a leading byte order mark (EF BB BF) from the text, not from the bytes.
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  for (
    let index = text.indexOf('\ufffd');
    index !== -1;
    index = text.indexOf('\ufffd', index + 1)
  ) {
    // Everything before `index` decoded cleanly, so its UTF-8 length is its byte length.
    const byteOffset = bom + encoder.encode(text.slice(0, index)).length;
    const real =
      bytes[byteOffset] === 0xef &&
      bytes[byteOffset + 1] === 0xbf &&
      bytes[byteOffset + 2] === 0xbd;
    if (!real) return { index, byteOffset };
  }
  return undefined;
}

/** Offset of the problem: from V8's "at position N", else jsonc-parser's, else the end. */
function offsetOf(message: string, text: string): number {
  const position = / at position (\d+)/.exec(message)?.[1];
  if (position !== undefined) return Number(position);
  const errors: jsonc.ParseError[] = [];
  jsonc.parse(text, errors, {
    disallowComments: true,
    allowTrailingComma: false,
    allowEmptyContent: false,
  });
  return errors[0]?.offset ?? text.length;
}

/** V8's reason without its position or its quote of the text ("Unexpected token 'x', "..."). */
function reason(message: string): string {
  return message
    .replace(/ (in JSON )?at position \d+.*$/s, '')
    .replace(/^(Unexpected token '.+?'), .*$/s, '$1');
}

/** 1-based line and column of `index` in `text`. */
export function positionOf(text: string, index: number): TextPosition {
  const before = text.slice(0, index);
  const lineStart = before.lastIndexOf('\n') + 1;
  return { line: before.split('\n').length, column: index - lineStart + 1 };
}
