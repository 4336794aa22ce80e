import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import type { Database } from '../../src/storage/database.js';
import { loadMigrations, migrate } from '../../src/storage/migrate.js';
import { createSqlStorage } from '../../src/storage/sql-storage.js';
import { ConflictError, type Storage, type UserDetails } from '../../src/storage/types.js';
import { bankAccount, institution, momoAccount, person } from './fixtures.js';

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The behaviour of the Storage contract (src/storage/types.ts), run on each backend: the same SQL
 * must behave the same on PGlite and on PostgreSQL, concurrency included.
 */
export function storageContract(openDatabase: () => Promise<Database>): void {
  let db: Database;
  let storage: Storage;

  const count = async (table: string): Promise<number> => {
    const [row] = await db.query<{ n: number }>(`SELECT count(*)::integer AS n FROM ${table}`);
    return row?.n ?? -1;
  };
  const counts = async () => ({
    users: await count('users'),
    accounts: await count('accounts'),
    memberships: await count('memberships'),
  });
  const expectConflict = async (write: Promise<unknown>, field: ConflictError['field']) => {
    const error = await write.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ConflictError);
    expect((error as ConflictError).field).toBe(field);
  };
  /** The stored details of a user, read the way the server can: create with its card number. */
  const stored = async (institutionId: string, details: UserDetails) =>
    (await storage.createOrAddUser(institutionId, details)).user;

  beforeAll(async () => {
    db = await openDatabase();
    await migrate(db, await loadMigrations());
    storage = createSqlStorage(db);
  });
  afterAll(async () => {
    await storage?.close();
  });
  beforeEach(async () => {
    await db.exec('TRUNCATE institutions, users CASCADE');
  });

  describe('createOrAddUser', () => {
    test('stores a new user with every field and answers created: true', async () => {
      const bank = await institution(storage, 'Bank A');
      const details = person();
      const { created, user } = await storage.createOrAddUser(bank, details);
      expect(created).toBe(true);
      const { account, ...rest } = details;
      expect(user).toMatchObject(rest);
      expect(user.id).toMatch(uuid);
      expect(user.documents).toEqual([]);
      expect(user.createdAt).toBeInstanceOf(Date);
      expect(Math.abs(user.createdAt.getTime() - Date.now())).toBeLessThan(60_000);
      expect(user.account).toEqual({
        ...account,
        id: expect.stringMatching(uuid),
        createdAt: expect.any(Date),
      });
      expect(typeof user.monthlyIncome).toBe('number');
      expect(await counts()).toEqual({ users: 1, accounts: 1, memberships: 1 });
    });

    test('stores nulls, a bank account, and a user without account', async () => {
      const bank = await institution(storage, 'Bank A');
      const sparse = person({
        otherName: null,
        gender: null,
        dateOfBirth: null,
        image: null,
        ghanaCardImage: null,
        isGhanaCardVerified: false,
        monthlyIncome: 0,
        kyc: { occupation: null, address: null, validFrom: null, validTo: null, refNumber: null },
        account: null,
      });
      const { user } = await storage.createOrAddUser(bank, sparse);
      expect(user).toMatchObject({ ...sparse, account: null });
      const withBank = person({ account: bankAccount() });
      expect((await storage.createOrAddUser(bank, withBank)).user.account).toMatchObject(
        bankAccount(),
      );
    });

    test('the same card again, from the same institution, changes nothing', async () => {
      const bank = await institution(storage, 'Bank A');
      const first = await storage.createOrAddUser(bank, person());
      const again = await storage.createOrAddUser(bank, {
        ...person({ firstName: 'Someone', account: null }),
        ghanaCardNumber: first.user.ghanaCardNumber,
      });
      expect(again.created).toBe(false);
      expect(again.user).toEqual(first.user);
      expect(await counts()).toEqual({ users: 1, accounts: 1, memberships: 1 });
    });

    test('the same card from another institution adds the stored user to it, details unchanged', async () => {
      const bankA = await institution(storage, 'Bank A');
      const bankB = await institution(storage, 'Bank B');
      const first = await storage.createOrAddUser(bankA, person());
      const other = person({ lastName: 'Owusu', account: bankAccount() });
      const added = await storage.createOrAddUser(bankB, {
        ...other,
        ghanaCardNumber: first.user.ghanaCardNumber,
      });
      expect(added.created).toBe(false);
      expect(added.user).toEqual(first.user);
      expect(await counts()).toEqual({ users: 1, accounts: 1, memberships: 2 });
      // Bank B may now update the user: the membership is real.
      expect(
        await storage.updateUser(bankB, first.user.id, {
          ...other,
          ghanaCardNumber: first.user.ghanaCardNumber,
        }),
      ).not.toBeNull();
    });

    test("a new user with another user's email is a conflict and writes nothing", async () => {
      const bankA = await institution(storage, 'Bank A');
      const bankB = await institution(storage, 'Bank B');
      const taken = await storage.createOrAddUser(bankA, person());
      const before = await counts();
      await expectConflict(
        storage.createOrAddUser(bankB, person({ email: taken.user.email })),
        'email',
      );
      await expectConflict(
        storage.createOrAddUser(bankB, person({ email: taken.user.email.toUpperCase() })),
        'email',
      );
      expect(await counts()).toEqual(before);
    });

    test('ten institutions creating one person at once make one user and ten memberships', async () => {
      const banks = await Promise.all(
        Array.from({ length: 10 }, (_, index) => institution(storage, `Bank ${index}`)),
      );
      const details = person();
      const results = await Promise.all(
        banks.map((bank) => storage.createOrAddUser(bank, details)),
      );
      expect(results.filter((result) => result.created)).toHaveLength(1);
      expect(new Set(results.map((result) => result.user.id)).size).toBe(1);
      expect(await counts()).toEqual({ users: 1, accounts: 1, memberships: 10 });
    });

    test('ten different people claiming one email at once: one user, nine conflicts', async () => {
      const bank = await institution(storage, 'Bank A');
      const outcomes = await Promise.allSettled(
        Array.from({ length: 10 }, () =>
          storage.createOrAddUser(bank, person({ email: 'shared@example.com' })),
        ),
      );
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
      for (const outcome of outcomes) {
        if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(ConflictError);
      }
      expect(await counts()).toEqual({ users: 1, accounts: 1, memberships: 1 });
    });
  });

  describe('updateUser', () => {
    test("replaces a member user's details", async () => {
      const bank = await institution(storage, 'Bank A');
      const { user } = await storage.createOrAddUser(bank, person());
      const changes = person({
        firstName: 'Akosua',
        otherName: null,
        dateOfBirth: '1985-12-01',
        monthlyIncome: 4100.5,
        isGhanaCardVerified: false,
        kyc: {
          occupation: 'Nurse',
          address: null,
          validFrom: '2021-02-03',
          validTo: null,
          refNumber: null,
        },
      });
      const updated = await storage.updateUser(bank, user.id, changes);
      const { account, ...rest } = changes;
      expect(updated).toMatchObject({
        ...rest,
        id: user.id,
        createdAt: user.createdAt,
        documents: [],
      });
      expect(await stored(bank, changes)).toEqual(updated);
      expect(await counts()).toEqual({ users: 1, accounts: 1, memberships: 1 });
    });

    test('answers null for a user of another institution, and changes nothing', async () => {
      const bankA = await institution(storage, 'Bank A');
      const bankB = await institution(storage, 'Bank B');
      const details = person();
      const { user } = await storage.createOrAddUser(bankA, details);
      expect(
        await storage.updateUser(
          bankB,
          user.id,
          person({ ghanaCardNumber: details.ghanaCardNumber }),
        ),
      ).toBeNull();
      expect(await stored(bankA, details)).toEqual(user);
    });

    test('answers null for an unknown id and for an id that is not a uuid', async () => {
      const bank = await institution(storage, 'Bank A');
      expect(
        await storage.updateUser(bank, '7c9e6679-7425-40de-944b-e07fc1f90ae7', person()),
      ).toBeNull();
      expect(await storage.updateUser(bank, 'not-a-uuid', person())).toBeNull();
      expect(await counts()).toEqual({ users: 0, accounts: 0, memberships: 0 });
    });

    test("another user's email or card number is a conflict, and nothing changes", async () => {
      const bank = await institution(storage, 'Bank A');
      const ama = person();
      const kofi = person({ firstName: 'Kofi' });
      const { user: amaStored } = await storage.createOrAddUser(bank, ama);
      const { user: kofiStored } = await storage.createOrAddUser(bank, kofi);
      const edits = { ...ama, firstName: 'Changed', account: bankAccount() };
      await expectConflict(
        storage.updateUser(bank, amaStored.id, { ...edits, email: kofi.email }),
        'email',
      );
      await expectConflict(
        storage.updateUser(bank, amaStored.id, { ...edits, ghanaCardNumber: kofi.ghanaCardNumber }),
        'ghanaCardNumber',
      );
      expect(await stored(bank, ama)).toEqual(amaStored);
      expect(await stored(bank, kofi)).toEqual(kofiStored);
    });

    test('keeping its own email and card number is no conflict', async () => {
      const bank = await institution(storage, 'Bank A');
      const details = person();
      const { user } = await storage.createOrAddUser(bank, details);
      expect(
        await storage.updateUser(bank, user.id, { ...details, lastName: 'Boateng' }),
      ).toMatchObject({
        lastName: 'Boateng',
      });
    });

    test('keeps the account when type and number are unchanged, with its new details', async () => {
      const bank = await institution(storage, 'Bank A');
      const details = person();
      const { user } = await storage.createOrAddUser(bank, details);
      const renamed = momoAccount({ name: 'A. Mensah', network: 'TELECEL' });
      const updated = await storage.updateUser(bank, user.id, { ...details, account: renamed });
      expect(updated?.account).toEqual({
        ...renamed,
        id: user.account?.id,
        createdAt: user.account?.createdAt,
      });
    });

    test('replaces the account when its type or number changes', async () => {
      const bank = await institution(storage, 'Bank A');
      const details = person();
      const { user } = await storage.createOrAddUser(bank, details);
      const otherWallet = momoAccount({ number: '+233501234567' });
      const replaced = await storage.updateUser(bank, user.id, {
        ...details,
        account: otherWallet,
      });
      expect(replaced?.account).toMatchObject(otherWallet);
      expect(replaced?.account?.id).toMatch(uuid);
      expect(replaced?.account?.id).not.toBe(user.account?.id);
      const toBank = await storage.updateUser(bank, user.id, {
        ...details,
        account: bankAccount(),
      });
      expect(toBank?.account).toMatchObject(bankAccount());
      expect(toBank?.account?.id).not.toBe(replaced?.account?.id);
      expect(await count('accounts')).toBe(1);
    });

    test('removes the account when none is given, and adds one again', async () => {
      const bank = await institution(storage, 'Bank A');
      const details = person();
      const { user } = await storage.createOrAddUser(bank, details);
      expect(
        (await storage.updateUser(bank, user.id, { ...details, account: null }))?.account,
      ).toBeNull();
      expect(await count('accounts')).toBe(0);
      const added = await storage.updateUser(bank, user.id, { ...details, account: bankAccount() });
      expect(added?.account).toMatchObject(bankAccount());
      expect(await count('accounts')).toBe(1);
    });
  });

  describe('credentials', () => {
    test('finds a stored key pair, and nothing for an unknown key', async () => {
      await storage.upsertCredentials([
        { institution: 'Bank A', publicKey: 'pk_a', secretKey: 'secret-a-0123456789' },
        { institution: 'Bank B', publicKey: 'pk_b', secretKey: 'secret-b-0123456789' },
      ]);
      const found = await storage.findCredential('pk_a');
      expect(found).toEqual({
        institutionId: expect.stringMatching(uuid),
        institution: 'Bank A',
        secretKey: 'secret-a-0123456789',
      });
      expect(await storage.findCredential('pk_unknown')).toBeNull();
      expect(await storage.countInstitutions()).toBe(2);
    });

    test('upserts institutions by name and key pairs by public key: a new secret replaces the old', async () => {
      await storage.upsertCredentials([
        { institution: 'Bank A', publicKey: 'pk_a', secretKey: 'old-secret-0123456789' },
      ]);
      const before = await storage.findCredential('pk_a');
      await storage.upsertCredentials([
        { institution: 'Bank A', publicKey: 'pk_a', secretKey: 'new-secret-0123456789' },
        { institution: 'Bank A', publicKey: 'pk_a2', secretKey: 'second-pair-0123456789' },
      ]);
      expect(await storage.findCredential('pk_a')).toEqual({
        ...before,
        secretKey: 'new-secret-0123456789',
      });
      expect((await storage.findCredential('pk_a2'))?.institutionId).toBe(before?.institutionId);
      expect(await storage.countInstitutions()).toBe(1);
    });

    test('an empty list changes nothing; ping answers', async () => {
      await storage.upsertCredentials([]);
      expect(await storage.countInstitutions()).toBe(0);
      await expect(storage.ping()).resolves.toBeUndefined();
    });
  });

  describe('migrations', () => {
    test('a second run applies nothing and keeps the data', async () => {
      await institution(storage, 'Bank A');
      expect(await migrate(db, await loadMigrations())).toEqual([]);
      expect(await storage.countInstitutions()).toBe(1);
      const recorded = await db.query<{ version: number }>(
        'SELECT version FROM schema_migrations ORDER BY version',
      );
      expect(recorded.map((row) => row.version)).toEqual(
        (await loadMigrations()).map((m) => m.version),
      );
    });
  });
}
