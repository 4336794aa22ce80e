import { openapiDocument } from '@institution-api/types';
import { describe, expect, it } from 'vitest';
import { normalizeUser } from '../src/user.js';
import { userAddedToInstitution, userCreatedNew, userUpdated } from './support/examples.js';

describe('normalizeUser', () => {
  it('reads the create shape (UserCreatedNew): snake_case account, userImage, documents', () => {
    const raw = userCreatedNew();
    const user = normalizeUser(raw);
    expect(user.image).toBe(raw.userImage);
    expect(user.documents).toEqual([]);
    expect(user.monthlyIncome).toBeNull();
    expect(user.account).toEqual({
      id: raw.account?.id,
      accountType: 'MOMO',
      accountNumber: '+233241234567',
      network: 'MTN',
      bankName: null,
      accountName: 'Ama Mensah',
      createdAt: '2026-11-21T09:30:00.000Z',
    });
    expect(user).not.toHaveProperty('userImage');
  });

  it('reads the create shape of an existing user with a bank account (UserAddedToInstitution)', () => {
    const user = normalizeUser(userAddedToInstitution());
    expect(user.account).toMatchObject({
      accountType: 'BANK',
      bankName: 'GCB Bank',
      network: null,
    });
    expect(user.kyc).toEqual({
      occupation: null,
      address: null,
      validFrom: null,
      validTo: null,
      refNumber: null,
    });
  });

  it('reads the update shape (UserUpdated): camelCase account without bankName, image, monthlyIncome', () => {
    const raw = userUpdated();
    const user = normalizeUser(raw);
    expect(user.image).toBe(raw.image);
    expect(user.monthlyIncome).toBe(2500.5);
    expect(user.documents).toEqual([]);
    expect(user.account?.bankName).toBeNull();
    expect(user.account).toHaveProperty('bankName', null);
  });

  it('gives the same User for a create and an update of the same user, except what create lacks', () => {
    const created = normalizeUser(userCreatedNew());
    const updated = normalizeUser(userUpdated());
    expect(created.id).toBe(updated.id);
    // The create shape carries no monthlyIncome; everything else must agree.
    expect({ ...created, monthlyIncome: updated.monthlyIncome }).toEqual(updated);
    expect(created.monthlyIncome).toBeNull();
    expect(Object.keys(created)).toEqual(Object.keys(updated));
    expect(Object.keys(created.account ?? {})).toEqual(Object.keys(updated.account ?? {}));
  });

  it("has exactly the keys of both answers, whatever the input shape (create's userImage as image)", () => {
    const schemas = openapiDocument.components.schemas as Record<string, { properties: object }>;
    const keysOf = (schema: string) => Object.keys(schemas[schema]?.properties ?? {});
    const keys = new Set([...keysOf('UserUpdated'), ...keysOf('UserCreated')]);
    keys.delete('userImage');
    for (const raw of [userCreatedNew(), userAddedToInstitution(), userUpdated()]) {
      expect(Object.keys(normalizeUser(raw)).sort()).toEqual([...keys].sort());
    }
  });

  it('keeps documents of the create shape and reads a user without an account', () => {
    const raw = { ...userCreatedNew(), documents: ['doc-1', 'https://cdn.example.com/d/2.pdf'] };
    raw.account = null;
    const user = normalizeUser(raw);
    expect(user.documents).toEqual(['doc-1', 'https://cdn.example.com/d/2.pdf']);
    expect(user.account).toBeNull();
  });

  it('fills KYC keys an answer leaves out with null', () => {
    const raw = userUpdated();
    raw.kyc = { occupation: 'Trader' };
    expect(normalizeUser(raw).kyc).toEqual({
      occupation: 'Trader',
      address: null,
      validFrom: null,
      validTo: null,
      refNumber: null,
    });
  });

  it('does not modify its input', () => {
    const raw = userCreatedNew();
    const copy = structuredClone(raw);
    normalizeUser(raw);
    expect(raw).toEqual(copy);
  });
});
