/**
 * The canonical text of an inner list and of an item, written directly for the values every
 * signature has: it must be `structured-headers`' own, text for text and error for error, for
 * every value, or a signature base (RFC 9421 §2.5) would differ from what a signer computed.
 */
import {
  type BareItem,
  type InnerList,
  type Item,
  parseDictionary,
  serializeInnerList,
  serializeItem,
  Token,
} from 'structured-headers';
import { describe, expect, it } from 'vitest';
import { innerListText, itemText } from '../src/canonical-fields.js';

/** What a serializer gives: its text, or the class and message of what it throws. */
function outcome(serialize: () => string): string {
  try {
    return serialize();
  } catch (error) {
    return `${(error as Error).constructor.name}: ${(error as Error).message}`;
  }
}

const params = (...entries: [string, BareItem][]) => new Map<string, BareItem>(entries);
const bytes = new Uint8Array([1, 2, 250]).buffer;

const innerLists: [string, InnerList][] = [
  [
    'a signature as the signers make it',
    [
      [
        ['@method', params()],
        ['@path', params()],
        ['content-digest', params()],
      ],
      params(
        ['created', 1_700_000_000],
        ['nonce', '0192a1b2c3d4e5f60718293a4b5c6d7e'],
        ['keyid', 'pk_live_1'],
        ['alg', 'hmac-sha256'],
      ),
    ],
  ],
  ['empty', [[], params()]],
  ['a string with a quote and a backslash', [[], params(['nonce', 'a"b\\c'])]],
  ['a string that is not ASCII', [[], params(['nonce', 'café'])]],
  ['a string with a control character', [[], params(['nonce', 'a\nb'])]],
  [
    'the largest integers',
    [[], params(['created', 999_999_999_999_999], ['x', -999_999_999_999_999])],
  ],
  ['an integer out of range', [[], params(['created', 1_000_000_000_000_000])]],
  ['a decimal', [[], params(['created', 1.5])]],
  ['booleans', [[], params(['a', true], ['b', false])]],
  ['a token and a byte sequence', [[], params(['t', new Token('abc/def')], ['b', bytes])]],
  ['a key that is not valid', [[], params(['Created', 1])]],
  ['a component with a parameter', [[['content-type', params(['sf', true])]], params()]],
  ['a component that is a token', [[[new Token('x'), params()]], params()]],
  ['a component with a quote', [[['a"b', params(['key', 'v'])]], params()]],
];

describe('innerListText', () => {
  it.each(innerLists)('writes %s as structured-headers does', (_name, list) => {
    expect(outcome(() => innerListText(list))).toBe(outcome(() => serializeInnerList(list)));
  });

  it('writes a parsed Signature-Input member back as structured-headers does', () => {
    const field =
      'sig1=("@method" "@path" "content-digest");created=1700000000;nonce="0192a1b2";keyid="pk \\"1\\"";alg="hmac-sha256";tag=?1, sig2=("@target-uri");created=-5;expires=1.25';
    for (const [, member] of parseDictionary(field)) {
      const list = member as InnerList;
      expect(innerListText(list)).toBe(serializeInnerList(list));
    }
  });
});

describe('itemText', () => {
  it.each(innerLists.flatMap(([name, [items]]) => items.map((item) => [name, item] as const)))(
    'writes an item of %s as structured-headers does',
    (_name, item: Item) => {
      expect(outcome(() => itemText(item))).toBe(outcome(() => serializeItem(item)));
    },
  );
});
