import type { UserInput } from '@institution-api/types';
import { openapiDocument } from '@institution-api/types';
import { describe, expect, it } from 'vitest';
import {
  accountOf,
  normalizedCard,
  normalizedMobile,
  storedDetails,
  withoutAccount,
} from '../../src/rules/index.js';

const example = (name: string) =>
  structuredClone(
    (openapiDocument.components.examples as Record<string, { value: unknown }>)[name]?.value,
  ) as UserInput;

describe('normalizedMobile (spec: Assumptions, "mobileNumber")', () => {
  it.each([
    ['0241234567', '+233241234567'],
    ['233241234567', '+233241234567'],
    ['+233241234567', '+233241234567'],
    ['0501234567', '+233501234567'],
  ])('%s is stored as %s', (written, stored) => {
    expect(normalizedMobile(written)).toBe(stored);
  });
});

describe('normalizedCard (spec: Assumptions, "ghanaCardNumber")', () => {
  it.each([
    ['GHA-123456789-0', 'GHA-123456789-0'],
    ['gha1234567890', 'GHA-123456789-0'],
    ['Gha-1234567890', 'GHA-123456789-0'],
    ['GHA123456789-0', 'GHA-123456789-0'],
  ])('%s is stored as %s', (written, stored) => {
    expect(normalizedCard(written)).toBe(stored);
  });
});

describe('storedDetails', () => {
  it('gives a MOMO account every account field, the wallet number normalized, bankName null', () => {
    const details = storedDetails({
      ...example('MomoAccountUser'),
      accountNumber: '0551234567',
    } as UserInput);
    expect(accountOf(details as never)).toEqual({
      accountType: 'MOMO',
      accountNumber: '+233551234567',
      accountName: 'Ama Mensah',
      network: 'MTN',
      bankName: null,
    });
  });

  it('gives a BANK account its number as written and network null', () => {
    expect(accountOf(storedDetails(example('BankAccountUser')) as never)).toMatchObject({
      accountType: 'BANK',
      network: null,
      bankName: 'GCB Bank',
    });
  });

  it('gives no account field to a user without an account, and null for accountOf', () => {
    const details = storedDetails(example('UserWithoutAccount')) as never;
    expect(Object.keys(details)).not.toContain('accountType');
    expect(accountOf(details)).toBeNull();
    const momo = storedDetails(example('MomoAccountUser')) as never;
    expect(Object.keys(withoutAccount(momo))).toEqual(
      Object.keys(momo).filter((name) => !(name in (accountOf(momo) ?? {}))),
    );
    expect(Object.keys(withoutAccount(momo))).not.toContain('accountNumber');
  });
});
