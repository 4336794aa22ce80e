/** The last guard (src/secret-redaction.ts): no text of a diagnosis holds the secret key. */
import { describe, expect, it } from 'vitest';
import { redactSecret } from '../src/secret-redaction.js';

const secretKey = 'sk_n8Tq3vKd9ZxW2mLp5rB7yH1cF4gJ6sA0eU3oI8kQ2wE';

describe('redactSecret', () => {
  it('replaces the secret key, and what follows its prefix, in every string of a value', () => {
    const value = {
      explanation: `keyid="${secretKey}" and ${secretKey.slice(3)}`,
      component: { signed: [secretKey] },
      length: 3,
    };
    expect(redactSecret(value, secretKey)).toEqual({
      explanation: 'keyid="(the secret key: not shown)" and (the secret key: not shown)',
      component: { signed: ['(the secret key: not shown)'] },
      length: 3,
    });
  });

  it('leaves a text without it as it is', () => {
    expect(redactSecret('pk_1 sk_', secretKey)).toBe('pk_1 sk_');
  });
});
