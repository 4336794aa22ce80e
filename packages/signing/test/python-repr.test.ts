/** Python's `str()` of a parsed JSON value (src/python-repr.ts), as Python 3.11 prints it. */
import { describe, expect, it } from 'vitest';
import { readJsonText } from '../src/json-text.js';
import { pythonRepr } from '../src/python-repr.js';

describe('pythonRepr', () => {
  it.each([
    [
      '{"a": "x", "b": true, "c": null, "d": 2500, "e": 2500.0, "f": [1.5, "it\'s"], "g": "Ɔ\\n"}',
      `{'a': 'x', 'b': True, 'c': None, 'd': 2500, 'e': 2500.0, 'f': [1.5, "it's"], 'g': 'Ɔ\\n'}`,
    ],
    ['[]', '[]'],
  ])('%s', (json, repr) => {
    expect(pythonRepr(readJsonText(json))).toBe(repr);
  });

  it('is none for a value that is not a dict or a list', () => {
    expect(pythonRepr(readJsonText('"x"'))).toBeUndefined();
  });
});
