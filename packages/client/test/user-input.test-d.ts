/**
 * "Read, change one field, update" compiles, and a create answer's user (whose monthlyIncome
 * the create shape does not carry) does not compile until the caller says what the income is.
 */
import { describe, expectTypeOf, it } from 'vitest';
import { createUsersClient, toUserInput, type User, type UserInput } from '../src/index.js';

const users = createUsersClient({ baseUrl: 'https://x.test', publicKey: 'pk', secretKey: 'sk' });
const body: UserInput = {
  email: 'ama.mensah@example.com',
  firstName: 'Ama',
  lastName: 'Mensah',
  mobileNumber: '0241234567',
  ghanaCardNumber: 'GHA-123456789-0',
  monthlyIncome: 2500.5,
};

describe('toUserInput', () => {
  it('accepts the user of an update answer and gives a UserInput', async () => {
    const { data } = await users.updateUser('3f0c9a52-6d1e-4b7a-9c2e-8a5d4f1b7e21', body);
    if (data) {
      expectTypeOf(toUserInput(data.user)).toEqualTypeOf<UserInput>();
      users.updateUser(data.user.id, { ...toUserInput(data.user), firstName: 'Efua' });
      users.updateUser(data.user.id, { ...toUserInput(data.user), monthlyIncome: 4000 });
    }
  });

  it('refuses the user of a create answer until monthlyIncome is given', async () => {
    const { data } = await users.createUser(body);
    if (data) {
      expectTypeOf(data.user.monthlyIncome).toEqualTypeOf<number | null>();
      // @ts-expect-error a create answer does not carry monthlyIncome: it may be null
      toUserInput(data.user);
      toUserInput({ ...data.user, monthlyIncome: 3200.75 });
      // @ts-expect-error the income is a number
      toUserInput({ ...data.user, monthlyIncome: '3200.75' });
    }
  });

  it('refuses any User whose income is not known to be a number', () => {
    const user = {} as User;
    // @ts-expect-error User's monthlyIncome is number | null
    toUserInput(user);
    if (user.monthlyIncome !== null) toUserInput({ ...user, monthlyIncome: user.monthlyIncome });
  });

  it('keeps the account rules of UserInput when a field is changed', async () => {
    const { data } = await users.updateUser('3f0c9a52-6d1e-4b7a-9c2e-8a5d4f1b7e21', body);
    if (data) {
      // @ts-expect-error a MOMO account needs a network
      const momo: UserInput = {
        ...toUserInput(data.user),
        accountType: 'MOMO',
        accountNumber: '0241234567',
        accountName: 'Ama',
        network: undefined,
      };
      users.updateUser(data.user.id, momo);
      // @ts-expect-error unknown fields are still rejected
      users.updateUser(data.user.id, { ...toUserInput(data.user), nickname: 'Ama' });
    }
  });
});
