import { readdirSync, readFileSync } from 'node:fs';
import type { UserInput } from '@institution-api/types';
import { describe, expect, it } from 'vitest';
import { outcomeStatus, storedDetails, UserDirectory } from '../../src/model/index.js';

const ama = {
  email: 'ama.mensah@example.com',
  firstName: 'Ama',
  lastName: 'Mensah',
  otherName: 'Serwaa',
  mobileNumber: '0241234567',
  ghanaCardNumber: 'GHA-123456789-0',
  monthlyIncome: 2500.5,
  accountType: 'MOMO',
  accountNumber: '0241234567',
  accountName: 'Ama Mensah',
  network: 'MTN',
} satisfies UserInput;
const kofi = {
  email: 'kofi@example.com',
  firstName: 'Kofi',
  lastName: 'Asante',
  mobileNumber: '0201234567',
  ghanaCardNumber: 'GHA-987654321-5',
  monthlyIncome: 100,
} satisfies UserInput;

let ids = 0;
const directory = () => new UserDirectory({ newId: () => `id-${++ids}`, now: () => new Date(0) });

describe('UserDirectory.create (spec: createUser, "Existing users", "Unique email")', () => {
  it('creates, then answers the stored user to its institution, unchanged', () => {
    const users = directory();
    const created = users.create('lender', ama);
    expect(created.outcome).toBe('created');
    const again = users.create('lender', {
      ...ama,
      ghanaCardNumber: 'gha1234567890',
      firstName: 'Other',
    });
    expect(again).toMatchObject({ outcome: 'existing', joined: false });
    expect(again.outcome === 'existing' && again.user.details.firstName).toBe('Ama');
    expect(outcomeStatus[created.outcome]).toBe(201);
    expect(outcomeStatus[again.outcome]).toBe(200);
  });

  it('adds another institution only with the same mobile number, in any spelling', () => {
    const users = directory();
    users.create('lender', ama);
    expect(users.create('savings', { ...ama, mobileNumber: '0201111111' })).toEqual({
      outcome: 'exists-with-other-details',
    });
    const joined = users.create('savings', { ...ama, mobileNumber: '+233241234567' });
    expect(joined).toMatchObject({ outcome: 'existing', joined: true });
    expect(joined.outcome === 'existing' && [...joined.user.members].sort()).toEqual([
      'lender',
      'savings',
    ]);
  });

  it("refuses a new user with another user's email, letter case aside", () => {
    const users = directory();
    users.create('lender', ama);
    expect(users.create('lender', { ...kofi, email: 'AMA.Mensah@example.com' })).toEqual({
      outcome: 'conflict',
      field: 'email',
    });
    expect(users.size).toBe(1);
  });
});

describe('UserDirectory.update (spec: updateUser, "Institution scope", "Update replaces")', () => {
  it('replaces every detail, for an institution the user belongs to', () => {
    const users = directory();
    const created = users.create('lender', ama);
    if (created.outcome !== 'created') throw new Error('not created');
    const { otherName: _, ...without } = ama;
    const updated = users.update('lender', created.user.id, { ...without, monthlyIncome: 3000 });
    expect(updated.outcome).toBe('updated');
    expect(updated.outcome === 'updated' && updated.user.details).toMatchObject({
      otherName: null,
      monthlyIncome: 3000,
    });
    // the same account (type and number) keeps its identity; another one gets a new id
    expect(updated.outcome === 'updated' && updated.user.account).toEqual(created.user.account);
    const moved = users.update('lender', created.user.id, { ...ama, accountNumber: '0209999999' });
    expect(moved.outcome === 'updated' && moved.user.account?.id).not.toBe(
      created.user.account?.id,
    );
  });

  it('answers not-found outside the institution, as for an id nobody has', () => {
    const users = directory();
    const created = users.create('lender', ama);
    if (created.outcome !== 'created') throw new Error('not created');
    expect(users.update('savings', created.user.id, ama)).toEqual({ outcome: 'not-found' });
    expect(users.update('lender', 'nobody', ama)).toEqual({ outcome: 'not-found' });
  });

  it("refuses another user's email or Ghana Card number", () => {
    const users = directory();
    const created = users.create('lender', ama);
    users.create('lender', kofi);
    if (created.outcome !== 'created') throw new Error('not created');
    expect(users.update('lender', created.user.id, { ...ama, email: kofi.email })).toEqual({
      outcome: 'conflict',
      field: 'email',
    });
    expect(
      users.update('lender', created.user.id, { ...ama, ghanaCardNumber: 'gha9876543215' }),
    ).toEqual({ outcome: 'conflict', field: 'ghanaCardNumber' });
  });
});

describe('storedDetails', () => {
  it('normalizes the numbers and clears what is absent', () => {
    expect(storedDetails(kofi)).toMatchObject({
      mobileNumber: '+233201234567',
      ghanaCardNumber: 'GHA-987654321-5',
      otherName: null,
      isGhanaCardVerified: false,
      kyc: { occupation: null, address: null, validFrom: null, validTo: null, refNumber: null },
    });
    expect(storedDetails(ama)).toMatchObject({ accountNumber: '+233241234567' });
  });
});

it('imports no node: module, so it runs in browsers and workers', () => {
  const dir = new URL('../../src/model/', import.meta.url);
  for (const file of readdirSync(dir)) {
    expect(readFileSync(new URL(file, dir), 'utf8'), file).not.toMatch(/from ['"]node:/);
  }
});
