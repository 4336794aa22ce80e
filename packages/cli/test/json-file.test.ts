import { describe, expect, it } from 'vitest';
import { JsonFileError, parseJsonFile, positionOf } from '../src/json-file.js';

const utf8 = (text: string) => new TextEncoder().encode(text);
const bytes = (...parts: (string | number[])[]) =>
  Buffer.concat(
    parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : Buffer.from(part))),
  );

function failure(input: Uint8Array): string {
  try {
    parseJsonFile(input, 'user.json');
  } catch (error) {
    expect(error).toBeInstanceOf(JsonFileError);
    return (error as Error).message;
  }
  throw new Error('expected a JsonFileError');
}

describe('parseJsonFile', () => {
  it('parses UTF-8 JSON, with or without a byte order mark, keeping a real U+FFFD', () => {
    expect(parseJsonFile(utf8('{"firstName":"Ɛfua"}'), 'f')).toEqual({ firstName: 'Ɛfua' });
    expect(parseJsonFile(bytes([0xef, 0xbb, 0xbf], '{"a":1}'), 'f')).toEqual({ a: 1 });
    expect(parseJsonFile(utf8('{"a":"\ufffd"}'), 'f')).toEqual({ a: '\ufffd' });
  });

  it.each([
    [
      'a trailing comma',
      '{\n  "a": 1,\n}',
      'line 3, column 1: Expected double-quoted property name',
    ],
    [
      'a missing comma',
      '{"a": 1\n "b": 2}',
      "line 2, column 2: Expected ',' or '}' after property value",
    ],
    // V8 names the character it stopped at ('o': "n" could start null); the place is the word's
    ['an unquoted word', '{\n  "a": [1, 2, nope]\n}', "line 2, column 15: Unexpected token 'o'"],
    ['a comment', '// user\n{}', "line 1, column 1: Unexpected token '/'"],
    ['single quotes', "{'a': 1}", "line 1, column 2: Expected property name or '}'"],
    ['the end of the text', '{"email": ', 'line 1, column 11: Unexpected end of JSON input'],
    ['an empty file', '', 'line 1, column 1: Unexpected end of JSON input'],
    [
      'text after the value',
      '{}\n{}',
      'line 2, column 1: Unexpected non-whitespace character after JSON',
    ],
    [
      'a wide character before the error',
      '{"a": "Ɔsei 👋🏾", x}',
      'line 1, column 20: Expected double-quoted property name',
    ],
  ])('says where JSON fails: %s', (_, text, where) => {
    expect(failure(utf8(text))).toBe(`user.json is not valid JSON: ${where}`);
  });

  it('says where UTF-8 fails, counting a byte order mark in the byte offset', () => {
    expect(failure(bytes('{"a":\n "', [0xc3], '"}'))).toBe(
      'user.json is not valid UTF-8: byte 0xC3 at line 2, column 3 (byte offset 8) is not UTF-8; save the file as UTF-8',
    );
    expect(failure(bytes([0xef, 0xbb, 0xbf], '{"a":"\ufffd', [0xff], '"}'))).toBe(
      'user.json is not valid UTF-8: byte 0xFF at line 1, column 8 (byte offset 12) is not UTF-8; save the file as UTF-8',
    );
  });
});

describe('positionOf', () => {
  it('counts lines and columns from 1', () => {
    expect(positionOf('ab\ncd', 0)).toEqual({ line: 1, column: 1 });
    expect(positionOf('ab\ncd', 4)).toEqual({ line: 2, column: 2 });
    expect(positionOf('ab\n', 3)).toEqual({ line: 2, column: 1 });
  });
});
