import { describe, expect, it } from 'vitest';
import { bodyText, queryText } from '../src/json.js';

describe('bodyText', () => {
  it('is JSON.stringify, non-ASCII unescaped', () => {
    const body = { firstName: 'Ɔsei', lastName: 'Ɛfua', note: '👋🏾' };
    expect(bodyText(body)).toBe(JSON.stringify(body));
    expect(bodyText(body)).toContain('Ɔsei');
  });

  it('refuses what JSON.stringify cannot represent', () => {
    expect(() => bodyText(undefined)).toThrow(TypeError);
    expect(() => bodyText(() => 1)).toThrow(TypeError);
  });
});

describe('queryText', () => {
  it('keeps insertion order', () => {
    expect(queryText({ page: '1', email: 'a@example.com' })).toBe(
      '{"page":"1","email":"a@example.com"}',
    );
  });

  it('requires a plain object', () => {
    expect(() => queryText([] as unknown as Record<string, unknown>)).toThrow(TypeError);
    expect(() => queryText(null as unknown as Record<string, unknown>)).toThrow(TypeError);
  });
});
