/**
 * A JSON text read with its lexemes kept and written in another style (src/json-text.ts): each
 * layout as its serializer writes it, numbers and escapes as received unless their dimension
 * changes, members in another order, and what each writing changed.
 */
import { describe, expect, it } from 'vitest';
import { type JsonStyle, readJsonText, writeJsonText } from '../src/json-text.js';

const received = '{"a": "\\u00e9\\/x", "b": 2500.0, "c": [1, {"d": null}], "e": {}, "f": []}';
const style = (changes: Partial<JsonStyle>): JsonStyle => ({
  layout: 'compact',
  order: { kind: 'received' },
  strings: 'raw',
  numbers: 'raw',
  ...changes,
});
const write = (changes: Partial<JsonStyle>) =>
  writeJsonText(readJsonText(received), style(changes), Number.MAX_SAFE_INTEGER);

describe('writeJsonText', () => {
  it.each<[string, Partial<JsonStyle>, string]>([
    ['compact', {}, '{"a":"\\u00e9\\/x","b":2500.0,"c":[1,{"d":null}],"e":{},"f":[]}'],
    ["Python's json.dumps", { layout: 'python' }, received],
    [
      'pretty-printed with 2 spaces (JSON.stringify, Go MarshalIndent, Python indent=2)',
      { layout: 'pretty2' },
      '{\n  "a": "\\u00e9\\/x",\n  "b": 2500.0,\n  "c": [\n    1,\n    {\n      "d": null\n    }\n  ],\n  "e": {},\n  "f": []\n}',
    ],
    [
      "Jackson's pretty printer",
      { layout: 'jackson' },
      '{\n  "a" : "\\u00e9\\/x",\n  "b" : 2500.0,\n  "c" : [ 1, {\n    "d" : null\n  } ],\n  "e" : { },\n  "f" : [ ]\n}',
    ],
    [
      'strings as JavaScript writes them',
      { strings: 'plain' },
      '{"a":"é/x","b":2500.0,"c":[1,{"d":null}],"e":{},"f":[]}',
    ],
    [
      "PHP's escapes",
      { strings: 'php' },
      '{"a":"\\u00e9\\/x","b":2500.0,"c":[1,{"d":null}],"e":{},"f":[]}',
    ],
    [
      'numbers in their shortest form',
      { numbers: 'shortest' },
      '{"a":"\\u00e9\\/x","b":2500,"c":[1,{"d":null}],"e":{},"f":[]}',
    ],
    [
      'numbers as a float is written',
      { numbers: 'float' },
      '{"a":"\\u00e9\\/x","b":2500.0,"c":[1.0,{"d":null}],"e":{},"f":[]}',
    ],
    [
      'numbers with two decimals',
      { numbers: 'fixed2' },
      '{"a":"\\u00e9\\/x","b":2500.00,"c":[1.00,{"d":null}],"e":{},"f":[]}',
    ],
    [
      'the documented keys first, the others after, as received',
      { order: { kind: 'documented', keys: ['f', 'e'] } },
      '{"f":[],"e":{},"a":"\\u00e9\\/x","b":2500.0,"c":[1,{"d":null}]}',
    ],
  ])('%s', (_, changes, text) => {
    expect(write(changes)?.text).toBe(text);
  });

  it('says which dimensions it changed, and the first number', () => {
    expect(write({ strings: 'plain', numbers: 'shortest' })).toMatchObject({
      stringsChanged: true,
      orderChanged: false,
      numberChanged: { received: '2500.0', written: '2500' },
    });
    expect(write({ order: { kind: 'sorted' } })).toMatchObject({ orderChanged: false });
  });

  it('writes nothing longer than its limit', () => {
    expect(writeJsonText(readJsonText(received), style({ layout: 'pretty4' }), 20)).toBeUndefined();
  });
});
