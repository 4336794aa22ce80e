import { describe, expect, it } from 'vitest';
import { fieldName } from '../src/field-errors.js';

describe('fieldName', () => {
  it.each([
    ['/kyc/validFrom', 'kyc.validFrom'],
    ['/email', 'email'],
    ['/documents/0', 'documents.0'],
    ['/a~1b/c~0d', 'a/b.c~d'],
    ['id', 'id'],
    ['', ''],
  ])('names the field at %j %j', (pointer, name) => {
    expect(fieldName(pointer)).toBe(name);
  });
});
