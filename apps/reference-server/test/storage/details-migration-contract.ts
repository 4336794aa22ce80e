import { createSpecSchemas } from '@institution-api/runtime/spec-ajv';
import { distinctUserBody } from '@institution-api/test-support/user-bodies';
import { openapiDocument } from '@institution-api/types';
import { expect, test } from 'vitest';
import { type Dialect, loadMigrations, migrationsDir } from '../../src/storage/migrations.js';
import type { Storage } from '../../src/storage/types.js';
import { normalizeUserInput } from '../../src/users/normalize-user-input.js';
import { toUserCreated } from '../../src/users/user-created.js';
import { toUserUpdated } from '../../src/users/user-updated.js';

/** Migration 0005 moved a user's details from columns into one JSON document. */
const detailsDocumentVersion = 5;

/** An empty database of one engine, migrated step by step, with rows written in SQL. */
export interface DatabaseUnderTest {
  /** Applies these package migrations. */
  migrate(migrations: Awaited<ReturnType<typeof loadMigrations>>): Promise<void>;
  /** Runs one statement with `?`-numbered parameters written as `$1, $2, …`. */
  run(sql: string, params: unknown[]): Promise<void>;
  /** A storage on the database, as the server opens it (migrated to the package's last). */
  storage(): Promise<Storage>;
  /** Ids as the engine's rows hold them (PostgreSQL: uuid; SQLite: text). */
  id(n: number): string;
  /** A boolean as a parameter of the engine. */
  boolean(value: boolean): unknown;
}

const specSchemas = createSpecSchemas(openapiDocument);

/**
 * Users written by the schema before migration 0005 (details in columns) answer, once it ran,
 * exactly what they answered before: every value kept byte for byte (text with a byte order mark
 * and an emoji, the year 0001, a double that needs 17 digits), nulls and `false` as they were.
 */
export function detailsMigrationContract(
  dialect: Dialect,
  fresh: () => Promise<DatabaseUnderTest>,
) {
  test(`users stored before the details document (${dialect}) answer as before once migrated`, async () => {
    const db = await fresh();
    const all = await loadMigrations(migrationsDir(dialect));
    await db.migrate(all.filter((m) => m.version < detailsDocumentVersion));

    const [institution, full, sparse, account] = [1, 2, 3, 4].map((n) => db.id(n)) as [
      string,
      string,
      string,
      string,
    ];
    await db.run('INSERT INTO institutions (id, name) VALUES ($1, $2)', [institution, 'Old Bank']);
    await db.run(
      `INSERT INTO users (id, email, first_name, last_name, other_name, gender, date_of_birth,
         mobile_number, ghana_card_number, monthly_income, is_ghana_card_verified, image,
         ghana_card_image, kyc_occupation, kyc_address, kyc_valid_from, kyc_valid_to,
         kyc_ref_number)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
      [
        full,
        'ama.old@example.com',
        '\uFEFFAma 👩🏾‍💻',
        'Mensah\u2028',
        'Serwaa',
        'female',
        '0001-01-01',
        '+233241234567',
        'GHA-123456789-0',
        0.1 + 0.2,
        db.boolean(true),
        'https://cdn.example.com/u/ama.png',
        'https://cdn.example.com/c/ama.png',
        'Trader',
        '12 Oxford Street, "Osu", Accra',
        '2021-01-01',
        '9999-12-31',
        'KYC-0001',
      ],
    );
    await db.run(
      `INSERT INTO users (id, email, first_name, last_name, mobile_number, ghana_card_number,
         monthly_income, is_ghana_card_verified)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        sparse,
        'kofi.old@example.com',
        'Kofi',
        'Boateng',
        '+233201234567',
        'GHA-987654321-1',
        0,
        db.boolean(false),
      ],
    );
    await db.run(
      `INSERT INTO accounts (id, user_id, type, number, network, bank_name, name)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [account, full, 'MOMO', '+233241234567', 'MTN', null, 'Ama Mensah'],
    );
    for (const user of [full, sparse]) {
      await db.run('INSERT INTO memberships (institution_id, user_id) VALUES ($1, $2)', [
        institution,
        user,
      ]);
    }

    const storage = await db.storage();
    try {
      // A create with a stored card number answers the stored user: what the old rows hold.
      const again = async (card: string, mobile: string) => {
        const body = { ...distinctUserBody(), ghanaCardNumber: card, mobileNumber: mobile };
        const { created, user } = await storage.createOrAddUser(
          institution,
          normalizeUserInput(body),
        );
        expect(created).toBe(false);
        return user;
      };
      const fullUser = await again('GHA-123456789-0', '0241234567');
      const created = toUserCreated(fullUser);
      expect(Object.keys(created)).toEqual(
        Object.keys(specSchemas.schema('UserCreated').properties as object),
      );
      expect(created).toMatchObject({
        id: full,
        firstName: '\uFEFFAma 👩🏾‍💻',
        lastName: 'Mensah\u2028',
        otherName: 'Serwaa',
        email: 'ama.old@example.com',
        gender: 'female',
        dateOfBirth: '0001-01-01T00:00:00.000Z',
        kyc: {
          occupation: 'Trader',
          address: '12 Oxford Street, "Osu", Accra',
          validFrom: '2021-01-01',
          validTo: '9999-12-31',
          refNumber: 'KYC-0001',
        },
        mobileNumber: '+233241234567',
        ghanaCardNumber: 'GHA-123456789-0',
        ghanaCardImage: 'https://cdn.example.com/c/ama.png',
        userImage: 'https://cdn.example.com/u/ama.png',
        isGhanaCardVerified: true,
        documents: [],
        account: {
          id: account,
          account_type: 'MOMO',
          account_number: '+233241234567',
          network: 'MTN',
          bank_name: null,
          account_name: 'Ama Mensah',
          created_at: expect.any(String),
        },
        createdAt: expect.any(String),
      });
      expect(specSchemas.validator('UserCreated')(created)).toBe(true);
      const updated = toUserUpdated(fullUser);
      expect(updated.monthlyIncome).toBe(0.30000000000000004);
      expect(specSchemas.validator('UserUpdated')(updated)).toBe(true);

      const sparseUser = toUserUpdated(await again('GHA-987654321-1', '0201234567'));
      expect(sparseUser).toMatchObject({
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
      expect(specSchemas.validator('UserUpdated')(sparseUser)).toBe(true);

      // And a migrated user takes an update like any other.
      const body = { ...distinctUserBody(), ghanaCardNumber: 'GHA-987654321-1' };
      const changed = await storage.updateUser(institution, sparse, normalizeUserInput(body));
      expect(changed && toUserUpdated(changed)).toMatchObject({
        id: sparse,
        firstName: body.firstName,
        monthlyIncome: body.monthlyIncome,
      });
    } finally {
      await storage.close();
    }
  });
}
