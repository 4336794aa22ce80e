import { describe, expectTypeOf, it } from 'vitest';
import type { UserCreated, UserInput, UserUpdated } from '../src/index.js';

// Each invalid body below must fail to compile; `@ts-expect-error` turns a body that compiles
// into a failing test, so these cannot pass vacuously.
const required = {
  email: 'ama.mensah@example.com',
  firstName: 'Ama',
  lastName: 'Mensah',
  mobileNumber: '0241234567',
  ghanaCardNumber: 'GHA-123456789-0',
  monthlyIncome: 2500.5,
};

describe('UserInput compiles valid bodies', () => {
  it('accepts each account variant', () => {
    const none: UserInput = required;
    const momo: UserInput = {
      ...required,
      accountType: 'MOMO',
      accountNumber: '0241234567',
      accountName: 'Ama Mensah',
      network: 'MTN',
    };
    const bank: UserInput = {
      ...required,
      accountType: 'BANK',
      accountNumber: '1021130012345',
      accountName: 'Ama Mensah',
      bankName: 'GCB Bank',
      network: null,
    };
    const nulls: UserInput = {
      ...required,
      accountType: null,
      accountNumber: null,
      kyc: { validFrom: '2021-01-01' },
    };
    expectTypeOf([none, momo, bank, nulls]).toEqualTypeOf<UserInput[]>();
  });
});

describe('UserInput rejects invalid bodies at compile time', () => {
  it('rule 2: MOMO without network', () => {
    // @ts-expect-error network is required when accountType is MOMO
    const body: UserInput = {
      ...required,
      accountType: 'MOMO',
      accountNumber: '0241234567',
      accountName: 'Ama',
    };
    return body;
  });

  it('rule 3: BANK without bankName', () => {
    // @ts-expect-error bankName is required when accountType is BANK
    const body: UserInput = {
      ...required,
      accountType: 'BANK',
      accountNumber: '1021130012345',
      accountName: 'Ama',
    };
    return body;
  });

  it('rule 1: accountType without accountNumber', () => {
    // @ts-expect-error accountNumber is required when accountType is given
    const body: UserInput = {
      ...required,
      accountType: 'BANK',
      accountName: 'Ama',
      bankName: 'GCB Bank',
    };
    return body;
  });

  it('rule 1: accountType without accountName', () => {
    // @ts-expect-error accountName is required when accountType is given
    const body: UserInput = {
      ...required,
      accountType: 'MOMO',
      accountNumber: '0241234567',
      network: 'MTN',
    };
    return body;
  });

  it('rule 1: account details without accountType', () => {
    // @ts-expect-error accountType is required when account details are given
    const body: UserInput = {
      ...required,
      accountNumber: '1021130012345',
      accountName: 'Ama',
      bankName: 'GCB Bank',
    };
    return body;
  });

  it('a network outside the enum', () => {
    const body: UserInput = {
      ...required,
      accountType: 'MOMO',
      accountNumber: '0241234567',
      accountName: 'Ama',
      // @ts-expect-error VODAFONE is not a network
      network: 'VODAFONE',
    };
    return body;
  });

  it('an accountType outside the enum', () => {
    const body: UserInput = {
      ...required,
      // @ts-expect-error CASH is not an account type
      accountType: 'CASH',
      accountNumber: '1',
      accountName: 'Ama',
    };
    return body;
  });

  it('rule 4: each always-required field missing', () => {
    const { email: _e, ...noEmail } = required;
    const { firstName: _f, ...noFirstName } = required;
    const { lastName: _l, ...noLastName } = required;
    const { mobileNumber: _m, ...noMobileNumber } = required;
    const { ghanaCardNumber: _g, ...noGhanaCardNumber } = required;
    const { monthlyIncome: _i, ...noMonthlyIncome } = required;
    // @ts-expect-error email is required
    const a: UserInput = noEmail;
    // @ts-expect-error firstName is required
    const b: UserInput = noFirstName;
    // @ts-expect-error lastName is required
    const c: UserInput = noLastName;
    // @ts-expect-error mobileNumber is required
    const d: UserInput = noMobileNumber;
    // @ts-expect-error ghanaCardNumber is required
    const e: UserInput = noGhanaCardNumber;
    // @ts-expect-error monthlyIncome is required
    const f: UserInput = noMonthlyIncome;
    return [a, b, c, d, e, f];
  });

  it('a field of the wrong type', () => {
    // @ts-expect-error monthlyIncome is a number
    const body: UserInput = { ...required, monthlyIncome: '2500' };
    return body;
  });

  it('an unknown field', () => {
    // @ts-expect-error nickname is not a field
    const body: UserInput = { ...required, nickname: 'Ama' };
    return body;
  });
});

describe('the two response shapes stay distinct', () => {
  it('create has userImage, documents and snake_case account keys', () => {
    expectTypeOf<UserCreated>().toHaveProperty('userImage');
    expectTypeOf<UserCreated>().toHaveProperty('documents');
    expectTypeOf<UserCreated>().not.toHaveProperty('monthlyIncome');
    expectTypeOf<NonNullable<UserCreated['account']>>().toHaveProperty('account_type');
  });

  it('update has image, monthlyIncome and camelCase account keys', () => {
    expectTypeOf<UserUpdated>().toHaveProperty('image');
    expectTypeOf<UserUpdated>().toHaveProperty('monthlyIncome');
    expectTypeOf<UserUpdated>().not.toHaveProperty('documents');
    expectTypeOf<NonNullable<UserUpdated['account']>>().toHaveProperty('accountType');
    expectTypeOf<NonNullable<UserUpdated['account']>>().not.toHaveProperty('account_type');
  });
});
