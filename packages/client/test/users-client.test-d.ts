/**
 * Compile-time guarantees: invalid bodies and ids do not compile, and results are typed.
 * Each `@ts-expect-error` fails the run if the line below it ever compiles.
 */
import type { AccountCreated, AccountUpdated } from '@institution-api/types';
import { describe, expectTypeOf, it } from 'vitest';
import {
  type ClientError,
  createUsersClient,
  type User,
  type UserAccount,
  type UserCreated,
  type UserInput,
  type UsersClientErrorKind,
  type UserUpdated,
  type UserWithIncome,
} from '../src/index.js';

/** A snake_case key in camelCase (`bank_name` → `bankName`), as `AccountCreated` spells them. */
type CamelCase<Key> = Key extends `${infer Head}_${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : Key;

const users = createUsersClient({ baseUrl: 'https://x.test', publicKey: 'pk', secretKey: 'sk' });
const id = '3f0c9a52-6d1e-4b7a-9c2e-8a5d4f1b7e21';
const required = {
  email: 'ama.mensah@example.com',
  firstName: 'Ama',
  lastName: 'Mensah',
  mobileNumber: '0241234567',
  ghanaCardNumber: 'GHA-123456789-0',
  monthlyIncome: 2500.5,
};

describe('createUser and updateUser bodies', () => {
  it('accept the three valid account variants', () => {
    users.createUser(required);
    users.createUser({ ...required, accountType: null, accountNumber: null });
    users.createUser({
      ...required,
      accountType: 'MOMO',
      accountNumber: '0241234567',
      accountName: 'Ama Mensah',
      network: 'MTN',
    });
    users.updateUser(id, {
      ...required,
      accountType: 'BANK',
      accountNumber: '1021130012345',
      accountName: 'Ama Mensah',
      bankName: 'GCB Bank',
      kyc: { occupation: 'Trader', validFrom: '2021-01-01' },
    });
  });

  it('reject a MOMO account without network', () => {
    // @ts-expect-error rule 2: network is required when accountType is MOMO
    users.createUser({
      ...required,
      accountType: 'MOMO',
      accountNumber: '0241234567',
      accountName: 'Ama Mensah',
    });
    // @ts-expect-error rule 2 on update too
    users.updateUser(id, {
      ...required,
      accountType: 'MOMO',
      accountNumber: '0241234567',
      accountName: 'Ama Mensah',
    });
  });

  it('reject a BANK account without bankName', () => {
    // @ts-expect-error rule 3: bankName is required when accountType is BANK
    users.createUser({
      ...required,
      accountType: 'BANK',
      accountNumber: '1021130012345',
      accountName: 'Ama Mensah',
    });
  });

  it('reject account details without accountType, unknown fields and missing required fields', () => {
    // @ts-expect-error rule 1 read the other way: details need an accountType
    users.createUser({ ...required, accountNumber: '0241234567', accountName: 'Ama' });
    // @ts-expect-error unknown fields are rejected
    users.createUser({ ...required, nickname: 'Ama' });
    // @ts-expect-error unknown fields are rejected on update too
    users.updateUser(id, { ...required, middleName: 'Serwaa' });
    const { monthlyIncome: _, ...withoutIncome } = required;
    // @ts-expect-error monthlyIncome is always required
    users.createUser(withoutIncome);
    // @ts-expect-error monthlyIncome is a number
    users.createUser({ ...required, monthlyIncome: '2500' });
  });

  it('reject an id that is not a string', () => {
    // @ts-expect-error the id is a UUID string
    users.updateUser(42, required);
    // @ts-expect-error the id comes first
    users.updateUser(required, id);
  });

  it('take UserInput', () => {
    expectTypeOf(users.createUser).parameter(0).toEqualTypeOf<UserInput>();
    expectTypeOf(users.updateUser).parameter(1).toEqualTypeOf<UserInput>();
  });
});

describe('results', () => {
  it('carry the canonical User, created for createUser only', async () => {
    const created = await users.createUser(required);
    if (created.data) {
      expectTypeOf(created.data.user).toEqualTypeOf<User>();
      expectTypeOf(created.data.created).toEqualTypeOf<boolean>();
      expectTypeOf(created.data.raw.userImage).toEqualTypeOf<string | null>();
      expectTypeOf(created.data.raw.account?.account_type).toEqualTypeOf<
        'MOMO' | 'BANK' | undefined
      >();
      expectTypeOf(created.error).toEqualTypeOf<undefined>();
      expectTypeOf(created.response).toEqualTypeOf<Response>();
    } else {
      expectTypeOf(created.error).toEqualTypeOf<ClientError>();
      expectTypeOf(created.response).toEqualTypeOf<Response | undefined>();
    }
    const updated = await users.updateUser(id, required);
    if (updated.data) {
      expectTypeOf(updated.data.user).toEqualTypeOf<UserWithIncome>();
      expectTypeOf(updated.data.raw.image).toEqualTypeOf<string | null>();
      expectTypeOf(updated.data).not.toHaveProperty('created');
    }
  });

  it('narrow the error by kind', async () => {
    const { error } = await users.createUser(required);
    if (error?.kind === 'http') {
      expectTypeOf(error.status).toEqualTypeOf<number>();
      expectTypeOf(error.title).toEqualTypeOf<string>();
      expectTypeOf(error.errors).toEqualTypeOf<{ path: string; message: string }[] | undefined>();
    } else if (error) {
      expectTypeOf(error.kind).toEqualTypeOf<UsersClientErrorKind>();
      expectTypeOf(error).toExtend<Error>();
    }
  });

  it('give User the canonical keys', () => {
    // The keys of both answers, create's userImage read as image.
    expectTypeOf<keyof User>().toEqualTypeOf<
      Exclude<keyof UserUpdated | keyof UserCreated, 'userImage'>
    >();
    expectTypeOf<User['image']>().toEqualTypeOf<string | null>();
    expectTypeOf<User['documents']>().toEqualTypeOf<string[]>();
    expectTypeOf<User['monthlyIncome']>().toEqualTypeOf<number | null>();
    expectTypeOf<User['account']>().toEqualTypeOf<UserAccount | null>();
    expectTypeOf<User['kyc']['occupation']>().toEqualTypeOf<string | null>();
    // The account's keys are those of both answers' account objects, derived from the generated
    // types (never listed here, so a field the spec adds is an edit of the spec alone): the
    // update's camelCase keys, which are the create's snake_case keys in camelCase.
    expectTypeOf<keyof UserAccount>().toEqualTypeOf<keyof AccountUpdated>();
    expectTypeOf<keyof UserAccount>().toEqualTypeOf<CamelCase<keyof AccountCreated>>();
    expectTypeOf<'accountNumber' | 'bankName' | 'createdAt'>().toExtend<keyof UserAccount>();
    expectTypeOf<UserAccount['bankName']>().toEqualTypeOf<string | null>();
  });
});

describe('raw', () => {
  it('is typed with the generated paths', () => {
    // @ts-expect-error no such path in the spec
    users.raw.POST('/api/v1/users', { body: required });
    // @ts-expect-error update needs the id path parameter
    users.raw.PUT('/api/v1/external/users/{id}', { body: required });
  });
});
