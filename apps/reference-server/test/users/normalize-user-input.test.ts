import type { UserInput } from '@institution-api/types';
import { describe, expect, test } from 'vitest';
import {
  normalizeGhanaCardNumber,
  normalizeMobileNumber,
  normalizeUserInput,
} from '../../src/users/normalize-user-input.js';

describe('normalizeMobileNumber', () => {
  test.each([
    ['0241234567', '+233241234567'],
    ['233241234567', '+233241234567'],
    ['+233241234567', '+233241234567'],
    ['0501234567', '+233501234567'],
  ])('%s → %s', (written, stored) => {
    expect(normalizeMobileNumber(written)).toBe(stored);
  });
});

describe('normalizeGhanaCardNumber', () => {
  test.each([
    ['GHA-123456789-0', 'GHA-123456789-0'],
    ['gha1234567890', 'GHA-123456789-0'],
    ['Gha-1234567890', 'GHA-123456789-0'],
    ['GHA123456789-0', 'GHA-123456789-0'],
  ])('%s → %s', (written, stored) => {
    expect(normalizeGhanaCardNumber(written)).toBe(stored);
  });
});

describe('normalizeUserInput', () => {
  const required = {
    email: 'efua.owusu@example.com',
    firstName: 'Efua',
    lastName: 'Owusu',
    mobileNumber: '233201234567',
    ghanaCardNumber: 'gha5554443332',
    monthlyIncome: 0,
  } satisfies UserInput;

  test('absent optional fields become empty values, because update replaces', () => {
    expect(normalizeUserInput(required)).toEqual({
      ...required,
      mobileNumber: '+233201234567',
      ghanaCardNumber: 'GHA-555444333-2',
      otherName: null,
      gender: null,
      dateOfBirth: null,
      isGhanaCardVerified: false,
      image: null,
      ghanaCardImage: null,
      kyc: { occupation: null, address: null, validFrom: null, validTo: null, refNumber: null },
      account: null,
    });
  });

  test('a MOMO account: wallet number normalized, no bank name', () => {
    const details = normalizeUserInput({
      ...required,
      accountType: 'MOMO',
      accountNumber: '0551234567',
      accountName: 'Efua Owusu',
      network: 'AIRTEL_TIGO',
    });
    expect(details.account).toEqual({
      type: 'MOMO',
      number: '+233551234567',
      network: 'AIRTEL_TIGO',
      bankName: null,
      name: 'Efua Owusu',
    });
  });

  test('a BANK account: number as written, no network', () => {
    const details = normalizeUserInput({
      ...required,
      accountType: 'BANK',
      accountNumber: '0012 3456-78',
      accountName: 'Efua Owusu',
      bankName: 'Fidelity Bank',
    });
    expect(details.account).toEqual({
      type: 'BANK',
      number: '0012 3456-78',
      network: null,
      bankName: 'Fidelity Bank',
      name: 'Efua Owusu',
    });
  });

  test('a partial kyc keeps what was given and nulls the rest', () => {
    const details = normalizeUserInput({
      ...required,
      kyc: { occupation: 'Nurse', validTo: '2030-01-01' },
    });
    expect(details.kyc).toEqual({
      occupation: 'Nurse',
      address: null,
      validFrom: null,
      validTo: '2030-01-01',
      refNumber: null,
    });
  });
});
