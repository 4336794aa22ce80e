/**
 * The other bytes a sender may have signed (src/body-variants.ts): what the usual serializers
 * write by default for one value is among the variants of what another wrote, in both
 * directions; a body's numbers, escapes and order are changed one at a time with everything else
 * as received; each variant once, never the received bytes themselves, within the budget.
 */
import { describe, expect, it } from 'vitest';
import { type BodyContext, bodyVariants } from '../src/body-variants.js';
import { type DiagnosisBudget, DiagnosisSpending } from '../src/diagnosis-budget.js';

const utf8 = new TextEncoder();
const variantsOf = (received: string | Uint8Array, context: BodyContext = {}) =>
  [
    ...bodyVariants(
      typeof received === 'string' ? utf8.encode(received) : received,
      new DiagnosisSpending({ maxMilliseconds: 60_000 }),
      context,
    ),
  ].map(({ form, bytes, signed, advice }) => ({
    form,
    text: new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes),
    bytes,
    signed,
    advice,
  }));
const texts = (received: string, context: BodyContext = {}) =>
  variantsOf(received, context).map(({ text }) => text);

// One value as each serializer writes it by default (each printed by the language named, on
// Debian 12): names outside ASCII, a URL, HTML characters, a nested object, an array, a number.
const written = {
  javascript:
    '{"firstName":"Ɛfua","lastName":"Ɔsei","image":"https://img.example/a.png?w=2&h=2","kyc":{"address":"a <b> & c"},"n":[1,2.5]}',
  python:
    '{"firstName": "\\u0190fua", "lastName": "\\u0186sei", "image": "https://img.example/a.png?w=2&h=2", "kyc": {"address": "a <b> & c"}, "n": [1, 2.5]}',
  pythonSortedIndented:
    '{\n  "firstName": "Ɛfua",\n  "image": "https://img.example/a.png?w=2&h=2",\n  "kyc": {\n    "address": "a <b> & c"\n  },\n  "lastName": "Ɔsei",\n  "n": [\n    1,\n    2.5\n  ]\n}',
  php: '{"firstName":"\\u0190fua","lastName":"\\u0186sei","image":"https:\\/\\/img.example\\/a.png?w=2&h=2","kyc":{"address":"a <b> & c"},"n":[1,2.5]}',
  phpPretty:
    '{\n    "firstName": "\\u0190fua",\n    "lastName": "\\u0186sei",\n    "image": "https:\\/\\/img.example\\/a.png?w=2&h=2",\n    "kyc": {\n        "address": "a <b> & c"\n    },\n    "n": [\n        1,\n        2.5\n    ]\n}',
  go: '{"firstName":"Ɛfua","lastName":"Ɔsei","image":"https://img.example/a.png?w=2\\u0026h=2","kyc":{"address":"a \\u003cb\\u003e \\u0026 c"},"n":[1,2.5]}',
  gson: '{"firstName":"Ɛfua","lastName":"Ɔsei","image":"https://img.example/a.png?w\\u003d2\\u0026h\\u003d2","kyc":{"address":"a \\u003cb\\u003e \\u0026 c"},"n":[1.0,2.5]}',
  jackson:
    '{\n  "firstName" : "Ɛfua",\n  "lastName" : "Ɔsei",\n  "image" : "https://img.example/a.png?w=2&h=2",\n  "kyc" : {\n    "address" : "a <b> & c"\n  },\n  "n" : [ 1.0, 2.5 ]\n}',
};
const documented = {
  documentedKeyOrders: [['firstName', 'lastName', 'image', 'kyc', 'address', 'n']],
};

describe('bodyVariants: the same JSON written otherwise', () => {
  it.each(Object.entries(written))(
    'gives what %s writes, from bytes each other serializer sent',
    (name, signed) => {
      for (const [other, sent] of Object.entries(written)) {
        if (other === name) continue;
        expect(texts(sent, documented), `${other} sent`).toContain(signed);
      }
    },
  );

  it.each([
    [
      'a float written 2500.0, sent 2500',
      '{"a":2500}',
      '{"a":2500.0}',
      '2500.0 where the bytes received have 2500',
    ],
    [
      '2500 signed, 2500.0 sent',
      '{"a":2500.0}',
      '{"a":2500}',
      '2500 where the bytes received have 2500.0',
    ],
    [
      'two decimals signed',
      '{"a":2500}',
      '{"a":2500.00}',
      '2500.00 where the bytes received have 2500',
    ],
    [
      'a float spelled 2500.0 kept, with another layout',
      '{"a": 2500.0, "b": "x"}',
      '{"a":2500.0,"b":"x"}',
      'compact',
    ],
    [
      'sorted keys, from a body sent in the documented order',
      '{"n":1,"firstName":"x"}',
      '{"firstName":"x","n":1}',
      'keys sorted',
    ],
    [
      'the documented order, from a body sent sorted',
      '{"firstName":"x","image":"y","lastName":"z"}',
      '{"firstName":"x","lastName":"z","image":"y"}',
      "keys in the order of the API's examples (received in another order)",
    ],
    [
      'escapes dropped, named as received',
      '{"a":"x\\/y\\u00e9"}',
      '{"a":"x/yé"}',
      "strings without the escapes received ('\\/', \\u00e9)",
    ],
    [
      'uppercase \\u escapes',
      '{"a":"é"}',
      '{"a":"\\u00E9"}',
      'non-ASCII written as \\uXXXX in uppercase hex (\\u00E9)',
    ],
    ['a final newline', '{"a":1}', '{"a":1}\n', 'with a final newline'],
    ['a byte order mark', '{"a":1}', '\ufeff{"a":1}', 'with a byte order mark'],
    ['the final newline dropped', '{"a":1}\n', '{"a":1}', 'without the final newline'],
    ['tabs', '{"a":[1]}', '{\n\t"a": [\n\t\t1\n\t]\n}', 'pretty-printed with tabs'],
  ])('%s', (_, received, text, form) => {
    expect(variantsOf(received, documented)).toContainEqual(
      expect.objectContaining({ form, text }),
    );
  });

  it('keeps every lexeme as received unless its dimension changes: a layout alone', () => {
    const received = '{"a": "\\u00e9\\/", "b": 1.50, "c": [true, null]}';
    expect(texts(received)).toContain('{"a":"\\u00e9\\/","b":1.50,"c":[true,null]}');
  });
});

describe('bodyVariants: other bytes than the JSON received', () => {
  const user =
    '{"email":"a@example.com","isGhanaCardVerified":true,"monthlyIncome":2500,"name":null}';
  it.each([
    ['no bytes', user, '', 'no bytes at all'],
    ['[object Object]', user, '[object Object]', 'the text "[object Object]"'],
    [
      "Python's str()",
      user,
      "{'email': 'a@example.com', 'isGhanaCardVerified': True, 'monthlyIncome': 2500, 'name': None}",
      "Python's str()",
    ],
    ['the JSON inside a JSON string', JSON.stringify(user), user, 'holds as a JSON string'],
    [
      'the body before a member was added',
      user,
      '{"email":"a@example.com","monthlyIncome":2500,"name":null}',
      'without its member "isGhanaCardVerified"',
    ],
    [
      'the method and path before the body',
      user,
      `POST\n/p\n${user}`,
      'the method, the path and the body',
    ],
    ['the body in base64', user, Buffer.from(user).toString('base64'), 'the body in base64'],
    ['the path alone', user, '/p', 'the path alone'],
  ])('%s', (_, received, text, signed) => {
    expect(variantsOf(received, { method: 'POST', path: '/p' })).toContainEqual(
      expect.objectContaining({ text, signed: expect.stringContaining(signed) }),
    );
  });

  it.each([
    [
      'sent in ISO-8859-1, signed in UTF-8',
      Buffer.from('{"a":"é"}', 'latin1'),
      '{"a":"é"}',
      'ISO-8859-1',
    ],
    [
      'sent in Windows-1252, signed in UTF-8',
      Buffer.from([0x22, 0x92, 0x22]),
      '"’"',
      'Windows-1252',
    ],
    [
      'signed in ISO-8859-1, sent in UTF-8',
      Buffer.from('{"a":"é"}'),
      Buffer.from('{"a":"é"}', 'latin1'),
      'ISO-8859-1',
    ],
    ['sent encoded twice', Buffer.from('{"a":"Ã©"}'), Buffer.from('{"a":"é"}'), 'encoded twice'],
    ['signed encoded twice', Buffer.from('{"a":"é"}'), Buffer.from('{"a":"Ã©"}'), 'encoded again'],
  ])('the same text in another charset: %s', (_, received, signed, words) => {
    const found = variantsOf(new Uint8Array(received)).find(({ bytes }) =>
      Buffer.from(bytes).equals(Buffer.from(signed)),
    );
    expect(`${found?.signed} ${found?.advice}`).toContain(words);
  });
});

describe('bodyVariants: each once, never the bytes received', () => {
  it('gives each text once, never the bytes received, at most 140', () => {
    for (const received of [...Object.values(written), '{}', '[]', '"x"', '{"a":1}\n']) {
      const all = texts(received, documented);
      expect(new Set(all).size).toBe(all.length);
      expect(all).not.toContain(received);
      expect(all.length).toBeLessThanOrEqual(140);
    }
  });

  it.each([
    ['not JSON: a final newline, a CRLF or a byte order mark', utf8.encode('not json'), 3],
    ['not UTF-8: the text it is in ISO-8859-1, in UTF-8', new Uint8Array([0xff, 0xfe, 0x7b]), 1],
    ['over 16 KiB: none', new Uint8Array(16 * 1024 + 1).fill(0x20), 0],
    [
      'nested deeper than 32 levels (pretty-printed, 8,000 levels would be 128 MB): its bytes only',
      utf8.encode(`${'['.repeat(8_000)}${']'.repeat(8_000)}`),
      3,
    ],
  ])('%s', (_, bytes, count) => {
    expect([
      ...bodyVariants(bytes, new DiagnosisSpending({ maxMilliseconds: 60_000 })),
    ]).toHaveLength(count);
  });
});

describe('bodyVariants within a budget', () => {
  const value = { firstName: 'Ɛfua', image: 'https://img.example/a.png', n: [1, 2.5] };
  const sent = utf8.encode(JSON.stringify(value, null, 2));
  // The time bound, a backstop for a busy machine, out of the way of the bounds tested here.
  const forms = (bytes: Uint8Array, budget: Partial<DiagnosisBudget> = {}) => {
    const spending = new DiagnosisSpending({ maxMilliseconds: 60_000, ...budget });
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
        maxMilliseconds: 1e9,
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
    expect(variants.next().value?.form).toBe('with a final newline');
    // Its bytes alone are spent: no other variant was written.
    expect(spending.bytesLeft).toBe(1e9 - (sent.length + 1));
  });
});
