import { describe, expect, test } from 'vitest';
import { checkedApiUrl, UsageError } from '../src/command-line.js';

describe('checkedApiUrl', () => {
  test('refuses a user or password (fetch would refuse it, repeating the password), naming neither', () => {
    for (const url of [
      'https://proxy-user:hunter2@api.example.com',
      'http://token@localhost:8080',
    ]) {
      expect(() => checkedApiUrl(url)).toThrow(UsageError);
      expect(() => checkedApiUrl(url)).toThrow(
        /^INSTITUTION_API_URL must not contain a user name or password$/,
      );
    }
  });

  test('gives any other URL as it was written', () => {
    expect(checkedApiUrl('http://localhost:8080')).toBe('http://localhost:8080');
    expect(checkedApiUrl('https://api.example.com/base/')).toBe('https://api.example.com/base/');
  });
});
