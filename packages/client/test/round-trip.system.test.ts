/**
 * "Read, change one field, update" against the real reference server: what toUserInput makes of
 * a user the service returned is a body the service accepts, and the update changes only the
 * field that was changed.
 */
import {
  type RunningServer,
  startReferenceServer,
} from '@institution-api/test-support/reference-server';
import { distinctUserBody, userBodyExamples } from '@institution-api/test-support/user-bodies';
import type { UserInput } from '@institution-api/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toUserInput } from '../src/user-input.js';
import { createUsersClient, type UsersClient } from '../src/users-client.js';
import { bankAccountUser, CREDENTIALS, momoAccountUser } from './support/examples.js';

let server: RunningServer;
let users: UsersClient;

beforeAll(async () => {
  server = await startReferenceServer({
    credentials: [{ institution: 'Client tests', ...CREDENTIALS }],
  });
  users = createUsersClient({ baseUrl: server.url, ...CREDENTIALS, retry: false });
}, 40_000);
afterAll(() => server?.stop());

/** Creates a user from `body` and returns what the service answered, failing on an error. */
async function create(body: UserInput) {
  const { data, error } = await users.createUser(body);
  if (error) throw new Error(`create failed: ${JSON.stringify(error)}`);
  expect(data.created).toBe(true);
  return data.user;
}

describe('toUserInput against the reference server', () => {
  it('a created user (every field, a MOMO account), with one field changed, is accepted as is', async () => {
    const body = momoAccountUser(); // every field of `UserInput`, KYC and images included
    const created = await create(body);
    expect(created.monthlyIncome).toBeNull(); // the create shape does not carry it

    const input = {
      ...toUserInput({ ...created, monthlyIncome: body.monthlyIncome }),
      otherName: 'Adwoa',
    };
    const { data, error } = await users.updateUser(created.id, input);
    expect(error).toBeUndefined();
    expect(data?.user).toEqual({
      ...created,
      otherName: 'Adwoa',
      monthlyIncome: body.monthlyIncome,
    });
  });

  it('an updated user, sent back unchanged, stays the same user (BANK account)', async () => {
    const created = await create({
      ...bankAccountUser(),
      dateOfBirth: '1985-12-31',
      kyc: { occupation: 'Teacher', validFrom: '2020-02-29' },
    });
    const first = await users.updateUser(
      created.id,
      toUserInput({ ...created, monthlyIncome: 8000 }),
    );
    if (first.error) throw new Error(JSON.stringify(first.error));
    const again = await users.updateUser(created.id, toUserInput(first.data.user));
    expect(again.error).toBeUndefined();
    expect(again.data?.user).toEqual(first.data.user);
    expect(again.data?.user.dateOfBirth).toBe('1985-12-31T00:00:00.000Z');
    expect(again.data?.user.account).toMatchObject({ accountType: 'BANK', bankName: 'GCB Bank' });
  });

  it('a user without an account keeps having none', async () => {
    const created = await create(distinctUserBody({}, userBodyExamples[2]));
    const { data, error } = await users.updateUser(created.id, {
      ...toUserInput({ ...created, monthlyIncome: 0 }),
      lastName: 'Asante-Mensah',
    });
    expect(error).toBeUndefined();
    expect(data?.user).toMatchObject({
      lastName: 'Asante-Mensah',
      account: null,
      monthlyIncome: 0,
    });
  });
});
