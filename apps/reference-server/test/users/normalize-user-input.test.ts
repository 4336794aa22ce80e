import { normalizedCard, normalizedMobile } from '@institution-api/runtime/rules';
import { userDetailsModel } from '@institution-api/runtime/user-details';
import { userBody, userBodyExamples } from '@institution-api/test-support/user-bodies';
import type { UserInput } from '@institution-api/types';
import { describe, expect, test } from 'vitest';
import { normalizeUserInput } from '../../src/users/normalize-user-input.js';

describe('normalizeUserInput', () => {
  /** The spec's request example with the required fields only. */
  const required = userBody(userBodyExamples[2]);
  /** The required fields and `more`. */
  const withRequired = (more: object) => ({ ...required, ...more }) as UserInput;

  test('absent optional fields become their absent values, because update replaces', () => {
    const details = normalizeUserInput(required) as Record<string, unknown>;
    expect(details).toMatchObject({
      ...required,
      mobileNumber: normalizedMobile(required.mobileNumber),
      ghanaCardNumber: normalizedCard(required.ghanaCardNumber),
      otherName: null,
      gender: null,
      dateOfBirth: null,
      isGhanaCardVerified: false,
      image: null,
      ghanaCardImage: null,
      kyc: { occupation: null, address: null, validFrom: null, validTo: null, refNumber: null },
      account: null,
    });
    // Every field of UserInput but the account's, as the spec lists them, the account aside.
    const fields = userDetailsModel.input.filter((field) => !field.account);
    expect(Object.keys(details).sort()).toEqual(
      [...fields.map((field) => field.name), 'account'].sort(),
    );
    for (const field of fields) {
      if (!(field.name in required)) expect(details[field.name]).toEqual(field.absent?.value);
    }
  });

  test('a MOMO account: wallet number normalized, no bank name', () => {
    const details = normalizeUserInput(
      withRequired({
        accountType: 'MOMO',
        accountNumber: '0551234567',
        accountName: 'Efua Owusu',
        network: 'AIRTEL_TIGO',
      }),
    );
    expect(details.account).toEqual({
      accountType: 'MOMO',
      accountNumber: '+233551234567',
      network: 'AIRTEL_TIGO',
      bankName: null,
      accountName: 'Efua Owusu',
    });
  });

  test('a BANK account: number as written, no network', () => {
    const details = normalizeUserInput(
      withRequired({
        accountType: 'BANK',
        accountNumber: '0012 3456-78',
        accountName: 'Efua Owusu',
        bankName: 'Fidelity Bank',
      }),
    );
    expect(details.account).toEqual({
      accountType: 'BANK',
      accountNumber: '0012 3456-78',
      network: null,
      bankName: 'Fidelity Bank',
      accountName: 'Efua Owusu',
    });
  });

  test('a partial kyc keeps what was given and nulls the rest', () => {
    const details = normalizeUserInput(
      withRequired({
        kyc: { occupation: 'Nurse', validTo: '2030-01-01' },
      }),
    );
    expect(details.kyc).toEqual({
      occupation: 'Nurse',
      address: null,
      validFrom: null,
      validTo: '2030-01-01',
      refNumber: null,
    });
  });
});
