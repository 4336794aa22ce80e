import { userDetailsModel, withDefaults } from '@institution-api/runtime/user-details';
import { describe, expect, it } from 'vitest';
import { normalizeUser, type User } from '../src/user.js';
import { toUserInput } from '../src/user-input.js';
import {
  bankAccountUser,
  momoAccountUser,
  userAddedToInstitution,
  userCreatedNew,
  userUpdated,
} from './support/examples.js';

/** The request fields other than the account's. */
const detailFields = userDetailsModel.input.filter((field) => !field.account);
/** A request body with each detail it leaves out given its absent value, as the service reads it. */
const complete = (body: object) => withDefaults(detailFields, body as Record<string, unknown>);

describe('toUserInput', () => {
  it("turns the spec's update answer back into the request that produced it", () => {
    // UserUpdated is MomoAccountUser as stored: numbers in international form.
    expect(toUserInput(normalizeUser(userUpdated()))).toEqual({
      ...complete(momoAccountUser()),
      mobileNumber: '+233241234567',
      accountNumber: '+233241234567',
    });
  });

  it('takes the income a create answer lacks from the caller, and reads a BANK account back', () => {
    const user = normalizeUser(userAddedToInstitution());
    expect(toUserInput({ ...user, monthlyIncome: 8000 })).toEqual({
      ...complete(bankAccountUser()),
      ghanaCardNumber: 'GHA-987654321-5',
    });
  });

  it('gives a date of birth back as the date part of the date-time, never shifted by a zone', () => {
    const user = normalizeUser(userUpdated());
    for (const [dateTime, date] of [
      ['1990-05-17T00:00:00.000Z', '1990-05-17'],
      ['2000-02-29T23:30:00-05:00', '2000-02-29'],
      ['1990-05-17', '1990-05-17'],
    ] as const) {
      expect(toUserInput({ ...user, dateOfBirth: dateTime }).dateOfBirth).toBe(date);
    }
    expect(toUserInput({ ...user, dateOfBirth: null }).dateOfBirth).toBeNull();
  });

  it('sends no account fields for a user without an account', () => {
    const input = toUserInput({ ...normalizeUser(userUpdated()), account: null });
    for (const key of ['accountType', 'accountNumber', 'accountName', 'network', 'bankName']) {
      expect(input).not.toHaveProperty(key);
    }
  });

  it('leaves out what is not a request field: id, createdAt, documents, the account id', () => {
    const input = toUserInput({ ...normalizeUser(userCreatedNew()), monthlyIncome: 2500.5 });
    expect(Object.keys(input).sort()).toEqual(Object.keys(complete(momoAccountUser())).sort());
  });

  it('does not share objects with the user it reads', () => {
    const user = normalizeUser(userUpdated());
    const input = toUserInput(user);
    expect(input.kyc).toEqual(user.kyc);
    expect(input.kyc).not.toBe(user.kyc);
  });

  it.each([
    [{ monthlyIncome: null }, /monthlyIncome is null \(a create answer does not carry it\)/],
    [{ mobileNumber: null }, /no mobileNumber/],
    [{ ghanaCardNumber: null }, /no ghanaCardNumber/],
    [{ dateOfBirth: 'May 17, 1990' }, /dateOfBirth is not a date/],
  ] as const)('throws a TypeError naming the field for %o', (change, message) => {
    const user = { ...normalizeUser(userUpdated()), ...change } as unknown as User & {
      monthlyIncome: number;
    };
    expect(() => toUserInput(user)).toThrow(TypeError);
    expect(() => toUserInput(user)).toThrow(message);
  });

  it('throws for an account the request cannot describe', () => {
    const user = normalizeUser(userUpdated());
    const account = user.account;
    if (account === null) throw new Error('the example has an account');
    expect(() => toUserInput({ ...user, account: { ...account, network: null } })).toThrow(
      /account\.network/,
    );
    expect(() =>
      toUserInput({ ...user, account: { ...account, accountType: 'BANK', network: null } }),
    ).toThrow(/account\.bankName/);
  });
});
