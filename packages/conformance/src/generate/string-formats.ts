import fc from 'fast-check';

/**
 * What the generator knows of one string `format` (JSON Schema 2020-12 §7.3, with the
 * spec's narrowing of `date` in `@institution-api/runtime/spec-ajv`): how to make valid values,
 * a valid value of a given length (for the length bounds), values that break it, and the valid
 * values at its own edges. Test data stays in documented ranges: e-mail addresses and URLs use
 * the example domains of RFC 2606.
 */
export interface StringFormat {
  arbitrary: fc.Arbitrary<string>;
  /** A valid value of exactly `length` code points, or undefined when the format has none. */
  ofLength(length: number): string | undefined;
  /** Strings that break the format. */
  invalid: string[];
  /** Valid values at the format's own edges (the first and last calendar day). */
  edges: string[];
}

const DAY = 86_400_000;
const FIRST_DAY = Date.parse('0001-01-01T00:00:00Z') / DAY;
const LAST_DAY = Date.parse('9999-12-31T00:00:00Z') / DAY;
const EXAMPLE_DOMAINS = ['example.com', 'example.org', 'example.net'];

const pad = (prefix: string, suffix: string, length: number) => {
  const fill = length - prefix.length - suffix.length;
  return fill < 1 ? undefined : `${prefix}${'a'.repeat(fill)}${suffix}`;
};

const FORMATS: Record<string, StringFormat> = {
  email: {
    arbitrary: fc
      .tuple(
        fc.stringMatching(/^[a-z0-9]{1,12}(?:[._+-][a-z0-9]{1,8})?$/),
        fc.constantFrom(...EXAMPLE_DOMAINS),
      )
      .map(([local, domain]) => `${local}@${domain}`),
    ofLength: (length) => pad('', '@example.com', length),
    invalid: ['not-an-email', 'two@@example.com', 'space in@example.com'],
    edges: [],
  },
  uri: {
    arbitrary: fc
      .tuple(
        fc.constantFrom('https', 'http'),
        fc.constantFrom(...EXAMPLE_DOMAINS),
        fc.stringMatching(/^(?:\/[a-z0-9._~-]{1,12}){0,3}(?:\?[a-z]{1,6}=[a-z0-9]{0,8})?$/),
      )
      .map(([scheme, domain, path]) => `${scheme}://${domain}${path}`),
    ofLength: (length) => pad('https://example.com/', '.png', length),
    invalid: ['not a uri', '/relative/path.png'],
    edges: [],
  },
  date: {
    arbitrary: fc
      .integer({ min: FIRST_DAY, max: LAST_DAY })
      .map((day) => new Date(day * DAY).toISOString().slice(0, 10)),
    ofLength: (length) => (length === 10 ? '2000-02-29' : undefined),
    invalid: ['1990-02-30', '0000-12-31', '1900-02-29', '17/05/1990', '1990-5-17'],
    edges: ['0001-01-01', '9999-12-31', '2000-02-29'],
  },
  'date-time': {
    arbitrary: fc
      .integer({ min: FIRST_DAY * DAY, max: LAST_DAY * DAY })
      .map((time) => new Date(time).toISOString()),
    ofLength: (length) => (length === 24 ? '2000-02-29T00:00:00.000Z' : undefined),
    invalid: ['2000-02-29', 'yesterday'],
    edges: [],
  },
  uuid: {
    arbitrary: fc.uuid(),
    ofLength: (length) => (length === 36 ? '00000000-0000-4000-8000-000000000000' : undefined),
    invalid: ['not-a-uuid', '3f0c9a52-6d1e-4b7a-9c2e'],
    edges: [],
  },
};

/** The generator's knowledge of `format`; an unknown format throws (the caller says where). */
export function stringFormat(format: string): StringFormat | undefined {
  return FORMATS[format];
}
