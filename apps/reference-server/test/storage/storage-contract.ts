import { randomUUID } from 'node:crypto';
import { type Recognition, recognize, sameAccount } from '@institution-api/runtime/rules';
import { waitFor } from '@institution-api/test-support/wait-for';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import {
  type CredentialKeyring,
  EncryptionKeyError,
  randomEncryptionKey,
} from '../../src/credentials/encryption-key.js';
import {
  ConflictError,
  type CredentialEvent,
  ExistsWithOtherDetailsError,
  type NonceClaim,
  ReplayedNonceError,
  type Storage,
  type UserDetails,
} from '../../src/storage/types.js';
import { bankAccount, institution, momoAccount, person } from './fixtures.js';

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The secret columns of a key pair's row, as the database holds them. */
export interface RawSecretRow {
  public_key: string;
  plaintext_secret: string | null;
  secret_key_id: string | null;
  secret_nonce: Uint8Array;
  secret_ciphertext: Uint8Array;
  secret_tag: Uint8Array;
}

/** A storage on a migrated database, with what the contract needs to look inside it. */
export interface StorageUnderTest {
  storage: Storage;
  /** The keys `storage` seals secrets with. */
  keyring: CredentialKeyring;
  /** Another storage on the same database, with other keys (the suite closes it). */
  withKeys(keyring: CredentialKeyring): Promise<Storage>;
  /** The secret columns of every key pair, as stored. */
  credentialRows(): Promise<RawSecretRow[]>;
  /** Stores a pair as versions before migration 0002 did: the secret in clear. */
  storeInClear(publicKey: string, institutionId: string, secret: string): Promise<void>;
  /** Copies one row's sealed secret over another's, as a tampering with the database would. */
  copySealedSecret(fromPublicKey: string, toPublicKey: string): Promise<void>;
  /** The rows of a table, counted in the database itself. */
  count(table: 'users' | 'accounts' | 'memberships' | 'message_signature_nonces'): Promise<number>;
  /** Deletes every institution, user and event (and so every credential, account and membership). */
  reset(): Promise<void>;
  /** Applies the package migrations of the engine again; the versions it applied. */
  migrateAgain(): Promise<number[]>;
  /** The versions recorded in schema_migrations, in order, and those of the package's files. */
  versions(): Promise<{ recorded: number[]; files: number[] }>;
}

/**
 * The behaviour of the Storage contract (src/storage/types.ts), run on each engine: SQLite and
 * PostgreSQL must behave the same, concurrency included.
 */
export function storageContract(open: () => Promise<StorageUnderTest>): void {
  let under: StorageUnderTest;
  let storage: Storage;

  const count = (table: 'users' | 'accounts' | 'memberships') => under.count(table);
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
    under = await open();
    storage = under.storage;
  });
  afterAll(async () => {
    await storage?.close();
  });
  beforeEach(async () => {
    await under.reset();
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

    test('the same card and mobile number from another institution add the stored user to it, details unchanged', async () => {
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

    test('a create that fails halfway leaves nothing behind, and spoils no create made with it', async () => {
      const bank = await institution(storage, 'Bank A');
      // The schema refuses a MOMO account without a network: the user is written first, then this.
      const broken = person({ account: momoAccount({ network: null }) });
      const outcomes = await Promise.allSettled([
        storage.createOrAddUser(bank, person()),
        storage.createOrAddUser(bank, broken),
        storage.createOrAddUser(bank, person()),
      ]);
      expect(outcomes.map((outcome) => outcome.status)).toEqual([
        'fulfilled',
        'rejected',
        'fulfilled',
      ]);
      expect(await counts()).toEqual({ users: 2, accounts: 2, memberships: 2 });
      const again = await storage.createOrAddUser(bank, { ...broken, account: null });
      expect(again.created).toBe(true);
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

  describe('existing user recognition (spec Assumptions, "Existing users")', () => {
    test('another institution with another mobile number is refused, and nothing is written', async () => {
      const bankA = await institution(storage, 'Bank A');
      const bankB = await institution(storage, 'Bank B');
      const first = await storage.createOrAddUser(bankA, person());
      const before = await counts();
      await expect(
        storage.createOrAddUser(bankB, {
          ...person({ mobileNumber: '+233501234567' }),
          ghanaCardNumber: first.user.ghanaCardNumber,
        }),
      ).rejects.toBeInstanceOf(ExistsWithOtherDetailsError);
      expect(await counts()).toEqual(before);
      expect(await storage.updateUser(bankB, first.user.id, person())).toBeNull();
    });

    test('an institution the user already belongs to is answered whatever its mobile number', async () => {
      const bank = await institution(storage, 'Bank A');
      const first = await storage.createOrAddUser(bank, person());
      const again = await storage.createOrAddUser(bank, {
        ...person({ mobileNumber: '+233501234567' }),
        ghanaCardNumber: first.user.ghanaCardNumber,
      });
      expect(again).toEqual({ created: false, user: first.user });
    });

    test('institutions with matching and other mobile numbers racing on a new card: the winner decides', async () => {
      const banks = await Promise.all(
        Array.from({ length: 10 }, (_, index) => institution(storage, `Bank ${index}`)),
      );
      const card = person().ghanaCardNumber;
      const mobiles = banks.map((_, index) =>
        index % 3 === 0 ? '+233501234567' : '+233241234567',
      );
      const outcomes = await Promise.allSettled(
        banks.map((bank, index) =>
          storage.createOrAddUser(bank, {
            ...person({ mobileNumber: mobiles[index] }),
            ghanaCardNumber: card,
          }),
        ),
      );
      const fulfilled = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
      for (const outcome of outcomes) {
        if (outcome.status === 'rejected') {
          expect(outcome.reason).toBeInstanceOf(ExistsWithOtherDetailsError);
        }
      }
      const winner = fulfilled.find((result) => result.created);
      expect(fulfilled.filter((result) => result.created)).toHaveLength(1);
      const matching = mobiles.filter((mobile) => mobile === winner?.user.mobileNumber).length;
      expect(fulfilled).toHaveLength(matching);
      expect(new Set(fulfilled.map((result) => result.user.id)).size).toBe(1);
      expect(await counts()).toEqual({ users: 1, accounts: 1, memberships: matching });
    });

    test('institutions with matching and other mobile numbers racing on an existing card', async () => {
      const owner = await institution(storage, 'Owner');
      const banks = await Promise.all(
        Array.from({ length: 10 }, (_, index) => institution(storage, `Bank ${index}`)),
      );
      const { user } = await storage.createOrAddUser(owner, person());
      const mobiles = banks.map((_, index) =>
        index % 2 === 0 ? user.mobileNumber : '+233501234567',
      );
      const outcomes = await Promise.allSettled(
        banks.map((bank, index) =>
          storage.createOrAddUser(bank, {
            ...person({ mobileNumber: mobiles[index], account: bankAccount() }),
            ghanaCardNumber: user.ghanaCardNumber,
          }),
        ),
      );
      outcomes.forEach((outcome, index) => {
        if (mobiles[index] === user.mobileNumber) {
          expect(outcome).toEqual({ status: 'fulfilled', value: { created: false, user } });
        } else {
          expect(outcome).toEqual({
            status: 'rejected',
            reason: expect.any(ExistsWithOtherDetailsError),
          });
        }
      });
      expect(await counts()).toEqual({ users: 1, accounts: 1, memberships: 6 });
    });
  });

  describe('the rule book: what the storage decides in SQL, the pure rules decide alike', () => {
    const mobiles = { stored: '+233241234567', other: '+233201234567' };
    test.each([
      { member: true, sent: mobiles.stored },
      { member: true, sent: mobiles.other },
      { member: false, sent: mobiles.stored },
      { member: false, sent: mobiles.other },
    ])('recognize: member $member, mobile sent $sent', async ({ member, sent }) => {
      const [bank, other] = [await institution(storage, 'Bank A'), await institution(storage, 'B')];
      const first = person({ mobileNumber: mobiles.stored });
      const { user } = await storage.createOrAddUser(bank, first);
      const want: Recognition = recognize({ isMember: member, mobileNumber: mobiles.stored }, sent);
      const outcome = await storage
        .createOrAddUser(member ? bank : other, {
          ...person(),
          ...{
            ghanaCardNumber: first.ghanaCardNumber,
            mobileNumber: sent,
          },
        })
        .then(
          ({ created, user: found }): Recognition | 'created' =>
            created ? 'created' : found.id !== user.id ? 'created' : member ? 'member' : 'join',
          (error: unknown): Recognition | 'created' => {
            if (error instanceof ExistsWithOtherDetailsError) return 'exists-with-other-details';
            throw error;
          },
        );
      expect(outcome).toBe(want);
      expect(await count('memberships')).toBe(want === 'join' ? 2 : 1);
    });

    test.each([
      { change: 'its details', after: { accountName: 'A. Mensah', network: 'TELECEL' } },
      { change: 'its number', after: { accountNumber: '+233501234567' } },
      { change: 'its type', after: bankAccount() },
    ])('sameAccount: an update that changes $change', async ({ after }) => {
      const bank = await institution(storage, 'Bank A');
      const details = person();
      const { user } = await storage.createOrAddUser(bank, details);
      const account = { ...momoAccount(), ...after };
      const updated = await storage.updateUser(bank, user.id, { ...details, account });
      const kept = updated?.account?.id === user.account?.id;
      expect(kept).toBe(sameAccount(details.account, account));
      expect(updated?.account).toMatchObject(account);
    });
  });

  describe('text and dates', () => {
    const texts = {
      firstName: '\uFEFFAma',
      lastName: 'Men\uFEFFsah',
      otherName: '\uFEFF',
      gender: '\u{1F600} \u{1F3F3}\uFE0F\u200D\u{1F308} \u{10FFFF}',
      image: 'https://cdn.example.com/e\u0301\u0301.png',
      kyc: {
        occupation: 'line\u2028separator\u2029',
        address: 'Acc\u0301ra \u{1D400}',
        validFrom: '0001-01-01',
        validTo: '9999-12-31',
        refNumber: '\uFEFF\uFEFF',
      },
    };

    test('every string is stored and read back byte for byte', async () => {
      const bank = await institution(storage, 'Bank A');
      const details = person({
        ...texts,
        account: momoAccount({ accountName: '\uFEFFAma \u{1F600}' }),
      });
      const { user } = await storage.createOrAddUser(bank, details);
      expect(user).toMatchObject({ ...texts, account: { accountName: '\uFEFFAma \u{1F600}' } });
      expect(await stored(bank, details)).toEqual(user);
    });

    test('an update stores the same strings byte for byte, and the date bounds', async () => {
      const bank = await institution(storage, 'Bank A');
      const details = person();
      const { user } = await storage.createOrAddUser(bank, details);
      const changed = { ...details, ...texts, dateOfBirth: '0001-01-01' };
      const updated = await storage.updateUser(bank, user.id, changed);
      expect(updated).toMatchObject({ ...texts, dateOfBirth: '0001-01-01' });
      expect(await stored(bank, changed)).toEqual(updated);
      const later = await storage.updateUser(bank, user.id, {
        ...changed,
        dateOfBirth: '9999-12-31',
      });
      expect(later?.dateOfBirth).toBe('9999-12-31');
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
      const renamed = momoAccount({ accountName: 'A. Mensah', network: 'TELECEL' });
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
      const otherWallet = momoAccount({ accountNumber: '+233501234567' });
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

    test('updates of one user at once are each made whole: each answers its own details, one of them stays', async () => {
      const bank = await institution(storage, 'Bank A');
      const details = person();
      const { user } = await storage.createOrAddUser(bank, details);
      const updates = Array.from({ length: 6 }, (_, index) => ({
        ...details,
        firstName: `Name ${index}`,
        account:
          index % 3 === 2
            ? null
            : momoAccount({ accountNumber: `+23350000000${index}`, accountName: `Name ${index}` }),
      }));
      const results = await Promise.all(
        updates.map((update) => storage.updateUser(bank, user.id, update)),
      );
      results.forEach((result, index) => {
        const { account, ...rest } = updates[index] as UserDetails;
        expect(result).toMatchObject({ ...rest, id: user.id, createdAt: user.createdAt });
        expect(result?.account ?? null).toEqual(
          account
            ? { ...account, id: expect.stringMatching(uuid), createdAt: expect.any(Date) }
            : null,
        );
      });
      const now = await stored(bank, details);
      expect(results).toContainEqual(now);
      expect(await counts()).toEqual({ users: 1, accounts: now.account ? 1 : 0, memberships: 1 });
    });

    test('updates of many users at once each get their own answer, and claim their own nonce', async () => {
      const [bankA, bankB] = [
        await institution(storage, 'Bank A'),
        await institution(storage, 'Bank B'),
      ];
      const users = await Promise.all(
        Array.from({ length: 5 }, async () => {
          const details = person();
          return { details, stored: (await storage.createOrAddUser(bankA, details)).user };
        }),
      );
      const [made, removed, ofAnother, taking, replayed] = users as [
        (typeof users)[number],
        (typeof users)[number],
        (typeof users)[number],
        (typeof users)[number],
        (typeof users)[number],
      ];
      const key = randomUUID();
      const now = new Date('2026-11-27T10:00:00.000Z');
      const nonceOf = (nonce: string): NonceClaim => ({
        publicKey: key,
        nonce,
        expiresAt: new Date(now.getTime() + 301_000),
        now,
      });
      expect(await storage.claimNonce(nonceOf('used'))).toBe(true);
      const outcomes = await Promise.allSettled([
        storage.updateUser(
          bankA,
          made.stored.id,
          { ...made.details, lastName: 'Made' },
          nonceOf('made'),
        ),
        storage.updateUser(
          bankA,
          removed.stored.id,
          { ...removed.details, account: null },
          nonceOf('removed'),
        ),
        storage.updateUser(bankB, ofAnother.stored.id, ofAnother.details, nonceOf('of another')),
        storage.updateUser(bankA, randomUUID(), person(), nonceOf('unknown')),
        storage.updateUser(bankA, 'not-a-uuid', person(), nonceOf('not a uuid')),
        storage.updateUser(
          bankA,
          taking.stored.id,
          { ...taking.details, email: made.details.email.toUpperCase() },
          nonceOf('taking'),
        ),
        storage.updateUser(
          bankA,
          replayed.stored.id,
          { ...replayed.details, lastName: 'Replayed' },
          nonceOf('used'),
        ),
        storage.updateUser(bankA, made.stored.id, {
          ...made.details,
          lastName: 'Made',
          firstName: 'Twice',
        }),
      ]);
      const [madeOutcome, removedOutcome, ...rest] = outcomes;
      expect(madeOutcome).toMatchObject({ status: 'fulfilled', value: { lastName: 'Made' } });
      expect(removedOutcome).toMatchObject({ status: 'fulfilled', value: { account: null } });
      expect(rest.slice(0, 3)).toEqual(Array(3).fill({ status: 'fulfilled', value: null }));
      const [conflict, replay, twice] = rest.slice(3);
      expect(conflict).toMatchObject({ status: 'rejected', reason: expect.any(ConflictError) });
      expect(conflict?.status === 'rejected' && conflict.reason.field).toBe('email');
      expect(replay).toMatchObject({ status: 'rejected', reason: expect.any(ReplayedNonceError) });
      expect(twice).toMatchObject({
        status: 'fulfilled',
        value: { id: made.stored.id, firstName: 'Twice' },
      });
      // What the answers say is what is stored (of one user's two updates, one stays whole); the
      // refused updates changed nothing.
      expect(
        [madeOutcome, twice].map((outcome) => outcome?.status === 'fulfilled' && outcome.value),
      ).toContainEqual(await stored(bankA, made.details));
      expect(await stored(bankA, removed.details)).toMatchObject({ account: null });
      for (const unchanged of [ofAnother, taking, replayed]) {
        expect(await stored(bankA, unchanged.details)).toEqual(unchanged.stored);
      }
      for (const nonce of ['made', 'removed', 'of another', 'unknown', 'not a uuid', 'taking']) {
        expect(await storage.claimNonce(nonceOf(nonce)), nonce).toBe(false);
      }
      expect(await counts()).toEqual({ users: 5, accounts: 4, memberships: 5 });
    });
  });

  describe('credentials', () => {
    const pair = (institution: string, publicKey: string, secretKey: string) => ({
      institution,
      publicKey,
      secretKey,
    });
    const hour = 3_600_000;
    const inHours = (hours: number) => new Date(Date.now() + hours * hour);
    const whats = (events: CredentialEvent[]) => events.map((e) => `${e.what} ${e.publicKey}`);

    test("knows its longest public key: 0 when none, an earlier release's long one kept", async () => {
      expect(await storage.longestPublicKey()).toBe(0);
      const legacy = `pk_${'l'.repeat(197)}`;
      await storage.upsertCredentials([
        pair('Bank A', 'pk_a', 'secret-a-0123456789'),
        pair('Bank L', legacy, 'secret-l-0123456789'),
      ]);
      expect(await storage.longestPublicKey()).toBe(200);
    });

    test('finds a stored key pair, and nothing for an unknown key', async () => {
      await storage.upsertCredentials([
        pair('Bank A', 'pk_a', 'secret-a-0123456789'),
        pair('Bank B', 'pk_b', 'secret-b-0123456789'),
      ]);
      const found = await storage.findCredential('pk_a');
      expect(found).toEqual({
        institutionId: expect.stringMatching(uuid),
        institution: 'Bank A',
        secretKey: 'secret-a-0123456789',
        expiresAt: null,
        revokedAt: null,
        signaturePolicy: 'any',
      });
      expect(await storage.findCredential('pk_unknown')).toBeNull();
      expect(await storage.countInstitutions()).toBe(2);
    });

    test('upserts institutions by name and key pairs by public key: a new secret replaces the old, each change an event', async () => {
      const first = await storage.upsertCredentials([
        pair('Bank A', 'pk_a', 'old-secret-0123456789'),
      ]);
      expect(whats(first)).toEqual(['provisioned pk_a']);
      expect(first[0]).toMatchObject({ institution: 'Bank A', actor: 'start', reason: null });
      expect(first[0]?.at).toBeInstanceOf(Date);
      const before = await storage.findCredential('pk_a');
      const second = await storage.upsertCredentials([
        pair('Bank A', 'pk_a', 'new-secret-0123456789'),
        pair('Bank A', 'pk_a2', 'second-pair-0123456789'),
      ]);
      expect(whats(second)).toEqual(['secret-replaced pk_a', 'provisioned pk_a2']);
      expect(await storage.findCredential('pk_a')).toEqual({
        ...before,
        secretKey: 'new-secret-0123456789',
      });
      expect((await storage.findCredential('pk_a2'))?.institutionId).toBe(before?.institutionId);
      expect(await storage.countInstitutions()).toBe(1);
      // The same pairs again (each start provisions them): nothing changes, nothing recorded.
      expect(
        await storage.upsertCredentials([
          pair('Bank A', 'pk_a', 'new-secret-0123456789'),
          pair('Bank A', 'pk_a2', 'second-pair-0123456789'),
        ]),
      ).toEqual([]);
      expect(await storage.listCredentialEvents()).toHaveLength(3);
    });

    test('an empty list changes nothing; ping answers', async () => {
      await storage.upsertCredentials([]);
      expect(await storage.countInstitutions()).toBe(0);
      await expect(storage.ping()).resolves.toBeUndefined();
    });

    test('the database holds each secret encrypted: ciphertext, nonce, tag and the key id, never the secret', async () => {
      const secret = 'a-secret-only-the-bank-knows-0123456789';
      await storage.upsertCredentials([pair('Bank A', 'pk_a', secret)]);
      await storage.issueCredential(pair('Bank A', 'pk_b', `${secret}-b`), {
        actor: 'tester',
        expiresAt: null,
      });
      const rows = await under.credentialRows();
      expect(rows).toHaveLength(2);
      for (const row of rows) {
        expect(row.plaintext_secret).toBeNull();
        expect(row.secret_key_id).toBe(under.keyring.current.id);
        expect(row.secret_nonce).toHaveLength(12);
        expect(row.secret_tag).toHaveLength(16);
        const bytes = Buffer.concat([row.secret_nonce, row.secret_ciphertext, row.secret_tag]);
        expect(bytes.includes(Buffer.from(secret))).toBe(false);
        expect(JSON.stringify(row)).not.toContain(secret);
      }
      expect((await storage.findCredential('pk_b'))?.secretKey).toBe(`${secret}-b`);
    });

    test('issues a pair with or without an expiry, creating its institution, on record', async () => {
      const expiresAt = inHours(24);
      const issued = await storage.issueCredential(
        pair('New Bank', 'pk_new', 'secret-new-0123456789'),
        {
          actor: 'alice',
          expiresAt,
          reason: 'first key',
        },
      );
      expect(issued?.issued).toEqual({
        publicKey: 'pk_new',
        institution: 'New Bank',
        createdAt: expect.any(Date),
        expiresAt,
        revokedAt: null,
        revokedReason: null,
        lastUsedAt: null,
        signaturePolicy: 'any',
      });
      expect(issued?.expiring).toEqual([]);
      expect(issued?.events).toEqual([
        {
          at: expect.any(Date),
          publicKey: 'pk_new',
          institution: 'New Bank',
          what: 'issued',
          reason: `first key; expires at ${expiresAt.toISOString()}`,
          actor: 'alice',
        },
      ]);
      expect((await storage.findCredential('pk_new'))?.expiresAt).toEqual(expiresAt);
      expect(await storage.listCredentialEvents()).toEqual(issued?.events);
      await expect(
        storage.issueCredential(pair('New Bank', 'pk_new', 'another-secret-0123'), {
          actor: 'alice',
          expiresAt: null,
        }),
      ).rejects.toThrow();
    });

    test('a pair issued to require message signatures keeps that policy, on record; others are any', async () => {
      const issued = await storage.issueCredential(
        {
          ...pair('Strict Bank', 'pk_strict', 'secret-strict-0123456789'),
          signaturePolicy: 'message-signature',
        },
        { actor: 'alice', expiresAt: null },
      );
      expect(issued?.issued.signaturePolicy).toBe('message-signature');
      expect(issued?.events).toMatchObject([
        { what: 'issued', publicKey: 'pk_strict', reason: 'requires message signatures' },
      ]);
      expect((await storage.findCredential('pk_strict'))?.signaturePolicy).toBe(
        'message-signature',
      );
      await storage.issueCredential(pair('Strict Bank', 'pk_lax', 'secret-lax-0123456789'), {
        actor: 'alice',
        expiresAt: null,
      });
      // Issued within one millisecond they list in public-key order: compare them sorted.
      expect(
        (await storage.listCredentials({ institution: 'Strict Bank' }))
          .map((record) => `${record.publicKey} ${record.signaturePolicy}`)
          .sort(),
      ).toEqual(['pk_lax any', 'pk_strict message-signature']);
    });

    test('provisioning sets the policy it is given, and changes it on record (absent: any)', async () => {
      const strict = {
        ...pair('Bank A', 'pk_a', 'secret-a-0123456789'),
        signaturePolicy: 'message-signature' as const,
      };
      expect(await storage.upsertCredentials([strict])).toMatchObject([
        { what: 'provisioned', reason: 'requires message signatures' },
      ]);
      expect((await storage.findCredential('pk_a'))?.signaturePolicy).toBe('message-signature');
      expect(await storage.upsertCredentials([strict])).toEqual([]);
      const lax = pair('Bank A', 'pk_a', 'secret-a-0123456789');
      expect(await storage.upsertCredentials([lax])).toMatchObject([
        {
          what: 'policy-changed',
          publicKey: 'pk_a',
          reason: 'message signatures no longer required (was message-signature)',
        },
      ]);
      expect((await storage.findCredential('pk_a'))?.signaturePolicy).toBe('any');
      // Another secret and another policy at once: one event, saying both.
      const events = await storage.upsertCredentials([
        { ...strict, secretKey: 'another-secret-0123456789' },
      ]);
      expect(events).toMatchObject([
        { what: 'secret-replaced', reason: 'requires message signatures' },
      ]);
      expect(await storage.findCredential('pk_a')).toMatchObject({
        secretKey: 'another-secret-0123456789',
        signaturePolicy: 'message-signature',
      });
      expect(whats(await storage.listCredentialEvents())).toEqual([
        'provisioned pk_a',
        'policy-changed pk_a',
        'secret-replaced pk_a',
      ]);
    });

    test('a rotation issues a pair and sets the other active pairs to expire at the end of the grace, never later than they did', async () => {
      await storage.upsertCredentials([
        pair('Bank A', 'pk_old', 'secret-old-0123456789'),
        pair('Bank A', 'pk_revoked', 'secret-revoked-0123456789'),
        pair('Bank B', 'pk_other_bank', 'secret-b-0123456789'),
      ]);
      const soon = inHours(1);
      await storage.issueCredential(pair('Bank A', 'pk_soon', 'secret-soon-0123456789'), {
        actor: 'alice',
        expiresAt: soon,
      });
      await storage.revokeCredential('pk_revoked', { actor: 'alice', reason: null });
      const graceEnd = inHours(24);
      const rotated = await storage.issueCredential(
        pair('Bank A', 'pk_new', 'secret-new-0123456789'),
        {
          actor: 'bob',
          expiresAt: null,
          rotation: { othersExpireAt: graceEnd },
        },
      );
      expect(rotated?.issued).toMatchObject({ publicKey: 'pk_new', expiresAt: null });
      expect(rotated?.expiring.map((r) => [r.publicKey, r.expiresAt])).toEqual([
        ['pk_old', graceEnd],
      ]);
      expect(whats(rotated?.events ?? [])).toEqual(['rotated pk_new', 'expiry-set pk_old']);
      expect(rotated?.events.every((event) => event.actor === 'bob')).toBe(true);
      const state = new Map(
        (await storage.listCredentials()).map((r) => [r.publicKey, [r.expiresAt, r.revokedAt]]),
      );
      expect(state.get('pk_old')).toEqual([graceEnd, null]);
      expect(state.get('pk_soon')).toEqual([soon, null]);
      expect(state.get('pk_revoked')?.[0]).toBeNull();
      expect(state.get('pk_other_bank')).toEqual([null, null]);
      expect(state.get('pk_new')).toEqual([null, null]);
    });

    test('a rotation of an institution that does not exist writes nothing', async () => {
      expect(
        await storage.issueCredential(pair('Nobody', 'pk_x', 'secret-x-0123456789'), {
          actor: 'bob',
          expiresAt: null,
          rotation: { othersExpireAt: inHours(1) },
        }),
      ).toBeNull();
      expect(await storage.countInstitutions()).toBe(0);
      expect(await storage.listCredentials()).toEqual([]);
      expect(await storage.listCredentialEvents()).toEqual([]);
    });

    test('revokes a pair once, with its reason; an unknown key is null', async () => {
      await storage.upsertCredentials([pair('Bank A', 'pk_a', 'secret-a-0123456789')]);
      const revoked = await storage.revokeCredential('pk_a', { actor: 'carol', reason: 'leaked' });
      expect(revoked?.alreadyRevoked).toBe(false);
      expect(revoked?.record).toMatchObject({
        publicKey: 'pk_a',
        revokedAt: expect.any(Date),
        revokedReason: 'leaked',
      });
      expect(revoked?.events).toEqual([
        expect.objectContaining({
          what: 'revoked',
          publicKey: 'pk_a',
          reason: 'leaked',
          actor: 'carol',
        }),
      ]);
      expect((await storage.findCredential('pk_a'))?.revokedAt).toEqual(revoked?.record.revokedAt);
      const again = await storage.revokeCredential('pk_a', { actor: 'carol', reason: 'twice' });
      expect(again).toMatchObject({ alreadyRevoked: true, events: [] });
      expect(again?.record.revokedReason).toBe('leaked');
      expect(
        await storage.revokeCredential('pk_unknown', { actor: 'carol', reason: null }),
      ).toBeNull();
      expect(whats(await storage.listCredentialEvents())).toEqual([
        'provisioned pk_a',
        'revoked pk_a',
      ]);
    });

    test('provisioning never revives a revoked or expired pair: it is skipped, on record', async () => {
      await storage.upsertCredentials([
        pair('Bank A', 'pk_revoked', 'secret-1-0123456789'),
        pair('Bank A', 'pk_active', 'secret-2-0123456789'),
      ]);
      await storage.issueCredential(pair('Bank A', 'pk_expired', 'secret-3-0123456789'), {
        actor: 'alice',
        expiresAt: new Date(Date.now() - 1000),
      });
      await storage.revokeCredential('pk_revoked', { actor: 'alice', reason: null });
      const events = await storage.upsertCredentials([
        pair('Bank A', 'pk_revoked', 'secret-1-changed-0123456789'),
        pair('Bank A', 'pk_expired', 'secret-3-0123456789'),
        pair('Bank A', 'pk_active', 'secret-2-0123456789'),
      ]);
      expect(events.map((e) => [e.what, e.publicKey, e.actor])).toEqual([
        ['provision-skipped', 'pk_revoked', 'start'],
        ['provision-skipped', 'pk_expired', 'start'],
      ]);
      expect(events[0]?.reason).toMatch(/^revoked at \d{4}-/);
      expect(events[1]?.reason).toMatch(/^expired at \d{4}-/);
      const revoked = await storage.findCredential('pk_revoked');
      expect(revoked?.revokedAt).toBeInstanceOf(Date);
      expect(revoked?.secretKey).toBe('secret-1-0123456789');
      expect((await storage.findCredential('pk_expired'))?.expiresAt?.getTime()).toBeLessThan(
        Date.now(),
      );
    });

    test('lists pairs and events, of every institution or one, never a secret', async () => {
      await storage.upsertCredentials([
        pair('Bank A', 'pk_a', 'secret-a-0123456789'),
        pair('Bank B', 'pk_b', 'secret-b-0123456789'),
      ]);
      await storage.revokeCredential('pk_b', { actor: 'dave', reason: 'gone' });
      const all = await storage.listCredentials();
      expect(all.map((r) => [r.publicKey, r.institution])).toEqual([
        ['pk_a', 'Bank A'],
        ['pk_b', 'Bank B'],
      ]);
      expect(JSON.stringify(all)).not.toContain('secret-');
      expect(
        (await storage.listCredentials({ institution: 'Bank B' })).map((r) => r.publicKey),
      ).toEqual(['pk_b']);
      expect(await storage.listCredentials({ institution: 'Bank C' })).toEqual([]);
      expect(whats(await storage.listCredentialEvents({ institution: 'Bank B' }))).toEqual([
        'provisioned pk_b',
        'revoked pk_b',
      ]);
      expect(whats(await storage.listCredentialEvents())).toEqual([
        'provisioned pk_a',
        'provisioned pk_b',
        'revoked pk_b',
      ]);
    });

    test('records when a pair was last used', async () => {
      await storage.upsertCredentials([pair('Bank A', 'pk_a', 'secret-a-0123456789')]);
      expect((await storage.listCredentials())[0]?.lastUsedAt).toBeNull();
      await storage.recordCredentialUse('pk_a');
      const lastUsedAt = (await storage.listCredentials())[0]?.lastUsedAt;
      expect(Math.abs((lastUsedAt?.getTime() ?? 0) - Date.now())).toBeLessThan(60_000);
      await expect(storage.recordCredentialUse('pk_unknown')).resolves.toBeUndefined();
    });

    test('encrypts the secrets an earlier version stored in clear, nothing lost, on record', async () => {
      const bank = await institution(storage, 'Bank A');
      await under.storeInClear('pk_legacy', bank, 'legacy-secret-0123456789');
      expect(
        (await under.credentialRows()).find((r) => r.public_key === 'pk_legacy'),
      ).toMatchObject({
        plaintext_secret: 'legacy-secret-0123456789',
        secret_key_id: null,
      });
      // Found in clear until then: nothing is refused during the upgrade.
      expect((await storage.findCredential('pk_legacy'))?.secretKey).toBe(
        'legacy-secret-0123456789',
      );
      const events = await storage.sealCredentialSecrets({ actor: 'start', reencrypt: false });
      expect(events.map((e) => [e.what, e.publicKey, e.actor])).toEqual([
        ['encrypted', 'pk_legacy', 'start'],
      ]);
      const row = (await under.credentialRows()).find((r) => r.public_key === 'pk_legacy');
      expect(row).toMatchObject({
        plaintext_secret: null,
        secret_key_id: under.keyring.current.id,
      });
      expect((await storage.findCredential('pk_legacy'))?.secretKey).toBe(
        'legacy-secret-0123456789',
      );
      expect(await storage.sealCredentialSecrets({ actor: 'start', reencrypt: false })).toEqual([]);
    });

    test('a wrong key is refused by its id, a tampered row by its tag; neither is a silent 401', async () => {
      await storage.upsertCredentials([
        pair('Bank A', 'pk_a', 'secret-a-0123456789'),
        pair('Bank A', 'pk_b', 'secret-b-0123456789'),
      ]);
      const wrong = await under.withKeys({ current: randomEncryptionKey() });
      const refusal = await wrong.sealCredentialSecrets({ actor: 'start', reencrypt: false }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refusal).toBeInstanceOf(EncryptionKeyError);
      expect((refusal as Error).message).toContain(
        `encrypted with key id ${under.keyring.current.id}`,
      );
      expect((refusal as Error).message).not.toContain('\n');

      await under.copySealedSecret('pk_a', 'pk_b');
      await expect(
        storage.sealCredentialSecrets({ actor: 'start', reencrypt: false }),
      ).rejects.toThrow(/The secret of pk_b does not decrypt with key/);
      await expect(storage.findCredential('pk_b')).rejects.toThrow(/does not decrypt/);
      expect((await storage.findCredential('pk_a'))?.secretKey).toBe('secret-a-0123456789');
    });

    test('a key change: the previous key still opens its secrets until reencrypt moves each of them, on record', async () => {
      await storage.upsertCredentials([
        pair('Bank A', 'pk_a', 'secret-a-0123456789'),
        pair('Bank B', 'pk_b', 'secret-b-0123456789'),
      ]);
      const next = randomEncryptionKey();
      const both = await under.withKeys({ current: next, previous: under.keyring.current });
      expect(await both.sealCredentialSecrets({ actor: 'start', reencrypt: false })).toEqual([]);
      expect((await both.findCredential('pk_a'))?.secretKey).toBe('secret-a-0123456789');
      // A pair issued meanwhile is sealed with the new key.
      await both.upsertCredentials([pair('Bank C', 'pk_c', 'secret-c-0123456789')]);
      const moved = await both.sealCredentialSecrets({ actor: 'erin', reencrypt: true });
      expect(moved.map((e) => [e.what, e.publicKey, e.actor])).toEqual([
        ['reencrypted', 'pk_a', 'erin'],
        ['reencrypted', 'pk_b', 'erin'],
      ]);
      expect(moved[0]?.reason).toBe(`from key ${under.keyring.current.id} to key ${next.id}`);
      expect(new Set((await under.credentialRows()).map((r) => r.secret_key_id))).toEqual(
        new Set([next.id]),
      );
      const onlyNext = await under.withKeys({ current: next });
      expect(await onlyNext.sealCredentialSecrets({ actor: 'start', reencrypt: false })).toEqual(
        [],
      );
      expect((await onlyNext.findCredential('pk_b'))?.secretKey).toBe('secret-b-0123456789');
      await expect(
        storage.sealCredentialSecrets({ actor: 'start', reencrypt: false }),
      ).rejects.toBeInstanceOf(EncryptionKeyError);
    });
  });

  describe('claimNonce', () => {
    const now = new Date('2026-11-27T10:00:00.000Z');
    const later = (seconds: number) => new Date(now.getTime() + seconds * 1000);
    const claim = (publicKey: string, nonce: string, at = now) =>
      storage.claimNonce({
        publicKey,
        nonce,
        expiresAt: new Date(at.getTime() + 301_000),
        now: at,
      });

    test('a nonce is claimed once per key pair, until its row has expired', async () => {
      const [key, other] = [randomUUID(), randomUUID()];
      expect(await claim(key, 'n1')).toBe(true);
      expect(await claim(key, 'n1')).toBe(false);
      expect(await claim(key, 'n1', later(300))).toBe(false);
      expect(await claim(other, 'n1')).toBe(true);
      expect(await claim(key, 'n2')).toBe(true);
      // At its expiry the row counts as absent: the nonce is claimed anew, and kept anew.
      expect(await claim(key, 'n1', later(301))).toBe(true);
      expect(await claim(key, 'n1', later(302))).toBe(false);
    });

    test('of claims of one nonce at once, exactly one wins', async () => {
      const key = randomUUID();
      const results = await Promise.all(Array.from({ length: 20 }, () => claim(key, 'at-once')));
      expect(results.filter(Boolean)).toHaveLength(1);
      // And claims of many nonces at once each win.
      const many = await Promise.all(
        Array.from({ length: 50 }, (_, i) => claim(key, `nonce-${i}`)),
      );
      expect(many.every(Boolean)).toBe(true);
    });

    test('expired rows are deleted a few at a time as claims come in', async () => {
      const key = randomUUID();
      // A write settles after the rows of the claims before it are committed (SQLite: a later
      // group commit); only then is the count a starting point.
      await storage.recordCredentialUse('pk_nobody');
      const before = await under.count('message_signature_nonces');
      // 300 nonces claimed an hour ago, expired since; then 600 claims now.
      for (let i = 0; i < 300; i++) await claim(key, `old-${i}`, later(-3600));
      // A claim may be decided before its row is committed (SQLite: with the next group commit).
      await expect
        .poll(() => under.count('message_signature_nonces'), { timeout: 5_000 })
        .toBe(before + 300);
      await Promise.all(Array.from({ length: 600 }, (_, i) => claim(key, `new-${i}`)));
      // Neither the purge (PostgreSQL) nor a claim's row (SQLite) is awaited by the claims.
      await expect
        .poll(() => under.count('message_signature_nonces'), { timeout: 5_000 })
        .toBeLessThanOrEqual(before + 600);
    });
  });

  describe("a write carrying its request's nonce", () => {
    const now = new Date('2026-11-27T10:00:00.000Z');
    const nonceOf = (publicKey: string, nonce: string): NonceClaim => ({
      publicKey,
      nonce,
      expiresAt: new Date(now.getTime() + 301_000),
      now,
    });
    const fails = (write: Promise<unknown>) =>
      write.then(
        () => undefined,
        (caught: unknown) => caught,
      );

    test('claims the nonce with the write: a replay writes nothing', async () => {
      const bank = await institution(storage, 'Bank A');
      const key = randomUUID();
      const first = person();
      expect((await storage.createOrAddUser(bank, first, nonceOf(key, 'c1'))).created).toBe(true);
      expect(await storage.claimNonce(nonceOf(key, 'c1'))).toBe(false);
      const before = await counts();
      expect(
        await fails(storage.createOrAddUser(bank, person(), nonceOf(key, 'c1'))),
      ).toBeInstanceOf(ReplayedNonceError);
      expect(await counts()).toEqual(before);

      const { user } = await storage.createOrAddUser(bank, person());
      const changed = { ...first, firstName: 'Replayed' };
      expect(
        await fails(storage.updateUser(bank, user.id, changed, nonceOf(key, 'c1'))),
      ).toBeInstanceOf(ReplayedNonceError);
      expect((await stored(bank, first)).firstName).toBe(first.firstName);
      const updated = await storage.updateUser(
        bank,
        user.id,
        { ...person(), ghanaCardNumber: user.ghanaCardNumber },
        nonceOf(key, 'u1'),
      );
      expect(updated?.id).toBe(user.id);
      expect(await storage.claimNonce(nonceOf(key, 'u1'))).toBe(false);
    });

    test('records the nonce of every answer the database gives: existing, not found, conflict', async () => {
      const [bankA, bankB] = [
        await institution(storage, 'Bank A'),
        await institution(storage, 'Bank B'),
      ];
      const key = randomUUID();
      const alice = person();
      const bob = person();
      await storage.createOrAddUser(bankA, alice);
      const { user: bobStored } = await storage.createOrAddUser(bankA, bob);
      // One after the other, each with its nonce; each answer is the database's.
      const outcomes: [
        string,
        () => Promise<unknown>,
        (new (...args: never[]) => Error) | undefined,
      ][] = [
        [
          'existing',
          () => storage.createOrAddUser(bankA, alice, nonceOf(key, 'existing')),
          undefined,
        ],
        [
          'other details',
          () =>
            storage.createOrAddUser(
              bankB,
              { ...alice, mobileNumber: '+233200000001' },
              nonceOf(key, 'other details'),
            ),
          ExistsWithOtherDetailsError,
        ],
        [
          'email taken',
          () =>
            storage.createOrAddUser(
              bankA,
              person({ email: alice.email }),
              nonceOf(key, 'email taken'),
            ),
          ConflictError,
        ],
        [
          'not found',
          () => storage.updateUser(bankB, bobStored.id, bob, nonceOf(key, 'not found')),
          undefined,
        ],
        [
          'not a uuid',
          () => storage.updateUser(bankA, 'not-a-uuid', bob, nonceOf(key, 'not a uuid')),
          undefined,
        ],
        [
          'update conflict',
          () =>
            storage.updateUser(
              bankA,
              bobStored.id,
              { ...bob, email: alice.email },
              nonceOf(key, 'update conflict'),
            ),
          ConflictError,
        ],
      ];
      for (const [what, outcome, expected] of outcomes) {
        const error = await fails(outcome());
        if (expected) expect(error, what).toBeInstanceOf(expected);
        else expect(error, what).toBeUndefined();
        expect(await storage.claimNonce(nonceOf(key, what)), what).toBe(false);
      }
    });

    test('of writes carrying one nonce at once, exactly one is made', async () => {
      const bank = await institution(storage, 'Bank A');
      const key = randomUUID();
      const before = await count('users');
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, () =>
          storage.createOrAddUser(bank, person(), nonceOf(key, 'at once')),
        ),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const result of results) {
        if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(ReplayedNonceError);
      }
      expect(await count('users')).toBe(before + 1);
    });
  });

  describe('rateLimiter', () => {
    test('counts each key down to 0 in its window, then refuses until the window ends', async () => {
      const limiter = storage.rateLimiter(3, 60);
      const [key, other] = [randomUUID(), randomUUID()];
      const windows = [];
      for (let i = 0; i < 5; i++) windows.push(await limiter.consume(key));
      expect(windows.map(({ allowed, remaining }) => ({ allowed, remaining }))).toEqual([
        { allowed: true, remaining: 2 },
        { allowed: true, remaining: 1 },
        { allowed: true, remaining: 0 },
        { allowed: false, remaining: 0 },
        { allowed: false, remaining: 0 },
      ]);
      for (const { resetsInMs } of windows) {
        expect(resetsInMs).toBeGreaterThan(50_000);
        expect(resetsInMs).toBeLessThanOrEqual(60_000);
      }
      // Every key has a window of its own.
      expect(await limiter.consume(other)).toMatchObject({ allowed: true, remaining: 2 });
    });

    test('requests counted at once are each counted: exactly the limit is allowed', async () => {
      const limiter = storage.rateLimiter(4, 60);
      const key = randomUUID();
      const windows = await Promise.all(Array.from({ length: 12 }, () => limiter.consume(key)));
      expect(windows.filter((w) => w.allowed)).toHaveLength(4);
      expect(
        windows
          .filter((w) => w.allowed)
          .map((w) => w.remaining)
          .sort(),
      ).toEqual([0, 1, 2, 3]);
    });

    test('a new window starts once the last has ended', async () => {
      const limiter = storage.rateLimiter(1, 1);
      const key = randomUUID();
      expect((await limiter.consume(key)).allowed).toBe(true);
      const refused = await limiter.consume(key);
      expect(refused.allowed).toBe(false);
      // Asked again until the window has ended (each refusal spends nothing of the next window).
      const next = await waitFor(
        async () => {
          const counted = await limiter.consume(key);
          return counted.allowed && counted;
        },
        { timeoutMs: 10_000, intervalMs: 50, message: 'a new window' },
      );
      expect(next).toMatchObject({ allowed: true, remaining: 0 });
    });

    test('each kind of count is its own: one key counted as requests and as refusals is two counts', async () => {
      const key = randomUUID();
      const requests = storage.rateLimiter(1, 60);
      const byKey = storage.rateLimiter(1, 60, 'refused-by-key');
      const byAddress = storage.rateLimiter(1, 60, 'refused-by-address');
      for (const limiter of [requests, byKey, byAddress]) {
        expect(await limiter.consume(key)).toMatchObject({ allowed: true, counted: 1 });
      }
      expect(await byKey.consume(key)).toMatchObject({ allowed: false, counted: 2 });
    });
  });

  describe('migrations', () => {
    test('a second run applies nothing and keeps the data', async () => {
      await institution(storage, 'Bank A');
      expect(await under.migrateAgain()).toEqual([]);
      expect(await storage.countInstitutions()).toBe(1);
      const { recorded, files } = await under.versions();
      expect(recorded).toEqual(files);
    });
  });
}
