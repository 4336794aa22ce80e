/**
 * The other bytes a sender may have signed (src/body-variants.ts): what the usual serializers
 * write by default for one value is among the variants of what another wrote, each once, never
 * the received bytes themselves.
 */
import { describe, expect, it } from 'vitest';
import { bodyVariants } from '../src/body-variants.js';
import { type DiagnosisBudget, DiagnosisSpending } from '../src/diagnosis-budget.js';

const utf8 = new TextEncoder();
const texts = (received: string) =>
  [...bodyVariants(utf8.encode(received))].map(({ form, bytes }) => ({
    form,
    text: new TextDecoder().decode(bytes),
  }));

// One value as each serializer writes it by default (each printed by the language named, on
// Debian 12): names outside ASCII, a URL, HTML characters, a nested object and an array.
const written = {
  javascript:
    '{"firstName":"Ɛfua","lastName":"Ɔsei","image":"https://img.example/a.png","kyc":{"address":"a <b> & c"},"n":[1,2.5]}',
  python:
    '{"firstName": "\\u0190fua", "lastName": "\\u0186sei", "image": "https://img.example/a.png", "kyc": {"address": "a <b> & c"}, "n": [1, 2.5]}',
  pythonSortedIndented:
    '{\n  "firstName": "Ɛfua",\n  "image": "https://img.example/a.png",\n  "kyc": {\n    "address": "a <b> & c"\n  },\n  "lastName": "Ɔsei",\n  "n": [\n    1,\n    2.5\n  ]\n}',
  php: '{"firstName":"\\u0190fua","lastName":"\\u0186sei","image":"https:\\/\\/img.example\\/a.png","kyc":{"address":"a <b> & c"},"n":[1,2.5]}',
  phpPretty:
    '{\n    "firstName": "\\u0190fua",\n    "lastName": "\\u0186sei",\n    "image": "https:\\/\\/img.example\\/a.png",\n    "kyc": {\n        "address": "a <b> & c"\n    },\n    "n": [\n        1,\n        2.5\n    ]\n}',
  go: '{"firstName":"Ɛfua","lastName":"Ɔsei","image":"https://img.example/a.png","kyc":{"address":"a \\u003cb\\u003e \\u0026 c"},"n":[1,2.5]}',
};

describe('bodyVariants', () => {
  it.each([
    ['JavaScript (JSON.stringify)', written.javascript, 'compact'],
    [
      "Python's json.dumps",
      written.python,
      "with a space after each ',' and ':' (Python's json.dumps), non-ASCII written as \\uXXXX",
    ],
    [
      "Python's json.dumps(indent=2, sort_keys=True, ensure_ascii=False)",
      written.pythonSortedIndented,
      'pretty-printed with 2 spaces, keys sorted',
    ],
    [
      "PHP's json_encode",
      written.php,
      "compact, non-ASCII written as \\uXXXX and '/' as '\\/' (PHP's json_encode)",
    ],
    [
      "PHP's json_encode(JSON_PRETTY_PRINT)",
      written.phpPretty,
      "pretty-printed with 4 spaces, non-ASCII written as \\uXXXX and '/' as '\\/' (PHP's json_encode)",
    ],
    [
      "Go's encoding/json",
      written.go,
      "compact, '<', '>' and '&' written as \\u003c, \\u003e and \\u0026 (Go's encoding/json)",
    ],
  ])('gives what %s writes, from bytes another serializer sent', (_, signed, form) => {
    // Sorted keys cannot be put back in the order they were written.
    const unsorted = Object.values(written).filter((text) => text !== written.pythonSortedIndented);
    for (const sent of unsorted.filter((text) => text !== signed)) {
      expect(texts(sent)).toContainEqual({ form, text: signed });
    }
  });

  it.each([
    [
      'a final newline added',
      '{"a":1}',
      'the bytes received with a final newline added',
      '{"a":1}\n',
    ],
    ['a final CRLF added', '{"a":1}', 'the bytes received with a final CRLF added', '{"a":1}\r\n'],
    [
      'the final newline dropped',
      '{"a":1}\n',
      'the bytes received without their final newline',
      '{"a":1}',
    ],
    ['tabs', '{"a":[1]}', 'pretty-printed with tabs', '{\n\t"a": [\n\t\t1\n\t]\n}'],
    [
      'keys sorted, compact, a final newline',
      '{"b":1,"a":{}}',
      'compact, keys sorted, with a final newline',
      '{"a":{},"b":1}\n',
    ],
  ])('gives the bytes with %s', (_, received, form, text) => {
    expect(texts(received)).toContainEqual({ form, text });
  });

  it('gives each text once, never the bytes received, at most 103', () => {
    for (const received of [...Object.values(written), '{}', '[]', '"x"', '{"a":1}\n']) {
      const all = texts(received).map(({ text }) => text);
      expect(new Set(all).size).toBe(all.length);
      expect(all).not.toContain(received);
      expect(all.length).toBeLessThanOrEqual(103);
    }
  });

  it.each([
    ['not JSON: a final newline or CRLF added', utf8.encode('not json'), 2],
    ['not UTF-8: none', new Uint8Array([0xff, 0xfe, 0x7b]), 0],
    ['over 16 KiB: none', new Uint8Array(16 * 1024 + 1).fill(0x20), 0],
    [
      'nested deeper than 32 levels (pretty-printed, 8,000 levels would be 128 MB): a final newline or CRLF added',
      utf8.encode(`${'['.repeat(8_000)}${']'.repeat(8_000)}`),
      2,
    ],
  ])('%s', (_, bytes, count) => {
    expect([...bodyVariants(bytes)]).toHaveLength(count);
  });
});

describe('bodyVariants within a budget', () => {
  const value = { firstName: 'Ɛfua', image: 'https://img.example/a.png', n: [1, 2.5] };
  const sent = utf8.encode(JSON.stringify(value, null, 2));
  const forms = (bytes: Uint8Array, budget: Partial<DiagnosisBudget> = {}) => {
    const spending = new DiagnosisSpending(budget);
    const variants = [...bodyVariants(bytes, spending)];
    return {
      forms: variants.map(({ form }) => form),
      bytes: variants.reduce((sum, variant) => sum + variant.bytes.length, 0),
      limit: spending.limit,
    };
  };

  it.each<[string, Uint8Array, Partial<DiagnosisBudget>, string | undefined]>([
    ['the default budget: every variant of a body of the API', sent, {}, undefined],
    ['4 candidates', sent, { maxCandidates: 4 }, 'candidates'],
    ['1 KiB of bytes', sent, { maxBytes: 1024 }, 'bytes'],
    [
      'more than 1,000 values (a flat array of 16,383 bytes)',
      utf8.encode(`[${'0,'.repeat(8190)}0]`),
      {},
      'values',
    ],
    [
      'nested deeper than 32 levels',
      utf8.encode(`${'['.repeat(33)}${']'.repeat(33)}`),
      {},
      'depth',
    ],
    ['over 16 KiB', utf8.encode(`"${'x'.repeat(16 * 1024)}"`), {}, 'size'],
  ])(
    '%s: stops there, at a prefix of the variants, within the bytes',
    (_, bytes, budget, limit) => {
      const all = forms(bytes, {
        maxCandidates: 1e6,
        maxBytes: 1e9,
        maxValues: 1e6,
        maxDepth: 1e3,
      });
      const within = forms(bytes, budget);
      expect(within.limit).toBe(limit);
      expect(all.forms.slice(0, within.forms.length)).toEqual(within.forms);
      expect(within.bytes).toBeLessThanOrEqual(budget.maxBytes ?? 128 * 1024);
      if (limit === undefined) expect(within.forms).toEqual(all.forms);
      else if (limit !== 'size') expect(within.forms.length).toBeLessThan(all.forms.length);
    },
  );

  it('makes each variant when it is asked for: none past the one a caller stopped at', () => {
    const spending = new DiagnosisSpending({ maxBytes: 1e9 });
    const variants = bodyVariants(sent, spending);
    expect(variants.next().value?.form).toBe('the bytes received with a final newline added');
    // Its bytes alone are spent: no other variant was written.
    expect(spending.bytesLeft).toBe(1e9 - (sent.length + 1));
  });
});
