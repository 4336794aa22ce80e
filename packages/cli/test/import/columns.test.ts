import { describe, expect, it } from 'vitest';
import { bodyOf, ColumnError, typeCell } from '../../src/import/columns.js';
import { createRowCheck } from '../../src/import/row-check.js';

const check = createRowCheck();

describe('columns from the spec', () => {
  it('types each cell as the field asks: number, boolean, or the string as written', () => {
    const columns = check.columns([
      'monthlyIncome',
      'isGhanaCardVerified',
      'mobileNumber',
      'kyc.occupation',
      'accountType',
      'network',
    ]);
    expect(columns.map((c) => [c.name, c.type])).toEqual([
      ['monthlyIncome', 'number'],
      ['isGhanaCardVerified', 'boolean'],
      ['mobileNumber', 'string'],
      ['kyc.occupation', 'string'],
      ['accountType', 'string'],
      ['network', 'string'],
    ]);
    expect(bodyOf(columns, ['2500.50', 'TRUE', '0241234567', 'Trader', 'MOMO', 'MTN'])).toEqual({
      monthlyIncome: 2500.5,
      isGhanaCardVerified: true,
      mobileNumber: '0241234567', // its leading 0 kept: the field is a string
      kyc: { occupation: 'Trader' },
      accountType: 'MOMO',
      network: 'MTN',
    });
  });

  it('leaves an empty cell out of the body, and nested objects only when a cell fills them', () => {
    const columns = check.columns(['email', 'kyc.occupation', 'kyc.address', 'otherName']);
    expect(bodyOf(columns, ['a@example.com', '', '', ''])).toEqual({ email: 'a@example.com' });
    expect(bodyOf(columns, ['', '', 'Accra', ' '])).toEqual({
      kyc: { address: 'Accra' },
      otherName: ' ', // a blank is not empty: the spec judges it
    });
  });

  it('keeps a cell that does not read as its type as written, for the spec to name the rule', () => {
    expect(typeCell('abc', 'number')).toBe('abc');
    expect(typeCell('1e3', 'number')).toBe(1000);
    expect(typeCell('-0.5', 'number')).toBe(-0.5);
    expect(typeCell('0x10', 'number')).toBe('0x10');
    expect(typeCell('', 'number')).toBe('');
    expect(typeCell('yes', 'boolean')).toBe('yes');
    expect(typeCell('False', 'boolean')).toBe(false);
    expect(check.problem({ monthlyIncome: 'abc' })?.errors).toContainEqual({
      path: '/body/monthlyIncome',
      message: 'monthlyIncome must be a number',
    });
  });

  it.each([
    [['email', 'nickname'], /unknown column "nickname": UserInput has no field "nickname"/],
    [['kyc.job'], /unknown column "kyc.job": kyc has no field "job"/],
    [['email.domain'], /unknown column "email.domain": email has no field "domain"/],
    [
      ['kyc'],
      /column "kyc" is an object: name its fields instead, with a dot \(e\.g\. kyc\.occupation\)/,
    ],
    [['email', 'email'], /column "email" is in the header twice/],
    [['email', ''], /column 2 of the header has no name/],
  ])('refuses the header %j', (header, message) => {
    expect(() => check.columns(header)).toThrow(ColumnError);
    expect(() => check.columns(header)).toThrow(message);
  });
});
