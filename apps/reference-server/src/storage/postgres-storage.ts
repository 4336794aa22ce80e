import type pg from 'pg';
import { loadMigrations, migrationsDir } from './migrations.js';
import { inPostgresTransaction, migratePostgres, openPostgresPool } from './postgres-database.js';
import { recognize } from './recognition.js';
import {
  type AccountDetails,
  ConflictError,
  ExistsWithOtherDetailsError,
  type Storage,
} from './types.js';
import {
  type ColumnCodec,
  prefixedAccountColumns,
  toStoredUser,
  type UserRow,
  userColumnValues,
  userWritableColumns,
} from './user-rows.js';

/** PostgreSQL's side of the column types (see migrations/postgres/0001_initial.sql), as pg reads them. */
const postgresCodec: ColumnCodec = {
  toBoolean: (value) => value,
  fromBoolean: (value) => value as boolean,
  fromTimestamp: (value) => value as Date,
  fromTextArray: (value) => value as string[],
};

/** Unique constraints of migrations/postgres/0001_initial.sql whose violation is the client's. */
const conflictFieldByConstraint: Record<string, ConflictError['field']> = {
  users_email_key: 'email',
  users_ghana_card_number_key: 'ghanaCardNumber',
};

/**
 * The user columns of table `alias` and its account's (`a`), as UserRow. Dates through to_char,
 * since pg would parse a `date` into a local-time Date.
 */
const userRowColumns = (alias: string) => `
  ${alias}.id, ${userWritableColumns
    .map((column) =>
      /^date_of_birth$|^kyc_valid_/.test(column)
        ? `to_char(${alias}.${column}, 'YYYY-MM-DD') AS ${column}`
        : `${alias}.${column}`,
    )
    .join(', ')},
  ${alias}.documents, ${alias}.created_at, ${prefixedAccountColumns('a')}`;

const writablePlaceholders = (from: number) =>
  userWritableColumns.map((_, index) => `$${from + index}`).join(', ');

/** After the writable columns ($1–$17): the account ($18–$22), then the institution ($23). */
const accountParameters = (from: number) => {
  const [type, number, network, bankName, name] = [0, 1, 2, 3, 4].map((i) => `$${from + i}`);
  return { type, values: `${type}::text, ${number}, ${network}, ${bankName}, ${name}` };
};
const writable = userWritableColumns.length;
const createAccount = accountParameters(writable + 1);
const createInstitution = `$${writable + 6}`;

/**
 * A new user with its account and membership in ONE statement (one round trip, no explicit
 * transaction: a statement is atomic). Without a conflict target, DO NOTHING covers both unique
 * keys: the card number (the same person, maybe being created by another institution at this very
 * moment: PostgreSQL waits for that transaction, then does nothing) and the email (someone else's).
 * It then returns no row, and {@link recognizeSql} finds out which.
 */
const createSql = `
  WITH u AS (
    INSERT INTO users (${userWritableColumns.join(', ')}) VALUES (${writablePlaceholders(1)})
    ON CONFLICT DO NOTHING
    RETURNING *
  ), a AS (
    INSERT INTO accounts (user_id, type, number, network, bank_name, name)
    SELECT id, ${createAccount.values} FROM u WHERE ${createAccount.type}::text IS NOT NULL
    RETURNING *
  ), membership AS (
    INSERT INTO memberships (institution_id, user_id) SELECT ${createInstitution}, id FROM u
  )
  SELECT ${userRowColumns('u')} FROM u LEFT JOIN a ON true`;

/**
 * $1 institution, $2 card number, $3 mobile number, $4 email. A new statement, so it sees the user
 * whose insert made createSql do nothing. It adds the membership by the rule of recognize()
 * ('join': not a member yet, same mobile number) in the same atomic statement, so the user's
 * mobile number cannot change in between. Always one row: no user has the card number when the
 * email was the conflict (`email_taken`).
 */
const recognizeSql = `
  WITH e AS (
    SELECT u.*, EXISTS (
      SELECT 1 FROM memberships m WHERE m.user_id = u.id AND m.institution_id = $1
    ) AS is_member
    FROM users u WHERE u.ghana_card_number = $2
  ), joined AS (
    INSERT INTO memberships (institution_id, user_id)
    SELECT $1, id FROM e WHERE NOT is_member AND mobile_number = $3
    ON CONFLICT DO NOTHING
  )
  SELECT ${userRowColumns('e')}, e.is_member,
    EXISTS (SELECT 1 FROM users WHERE lower(email) = lower($4)) AS email_taken
  FROM (SELECT) AS one LEFT JOIN e ON true LEFT JOIN accounts a ON a.user_id = e.id`;

const updateAccount = accountParameters(writable + 3);

/**
 * $1 user, $2 institution, then the writable columns and the account: only a member's user changes.
 * The account is upserted: its id and creation time are kept when type and number are unchanged
 * (the same payout account with new details), replaced by new ones (`excluded`, the defaults)
 * otherwise; no account deletes it. One statement, one round trip.
 */
const updateSql = `
  WITH u AS (
    UPDATE users SET ${userWritableColumns.map((column, index) => `${column} = $${index + 3}`).join(', ')},
      updated_at = now()
    WHERE id = $1
      AND EXISTS (SELECT 1 FROM memberships m WHERE m.user_id = users.id AND m.institution_id = $2)
    RETURNING *
  ), a AS (
    INSERT INTO accounts AS old (user_id, type, number, network, bank_name, name)
    SELECT id, ${updateAccount.values} FROM u WHERE ${updateAccount.type}::text IS NOT NULL
    ON CONFLICT (user_id) DO UPDATE SET
      id = CASE WHEN old.type = excluded.type AND old.number = excluded.number
        THEN old.id ELSE excluded.id END,
      created_at = CASE WHEN old.type = excluded.type AND old.number = excluded.number
        THEN old.created_at ELSE excluded.created_at END,
      type = excluded.type, number = excluded.number, network = excluded.network,
      bank_name = excluded.bank_name, name = excluded.name
    RETURNING *
  ), removed AS (
    DELETE FROM accounts WHERE ${updateAccount.type}::text IS NULL AND user_id IN (SELECT id FROM u)
  )
  SELECT ${userRowColumns('u')} FROM u LEFT JOIN a ON true`;

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * How often a create retries when its card number was taken and then gone again (another user's
 * update moved it away between the two statements): in practice never more than once.
 */
const createAttempts = 3;

/**
 * The {@link Storage} on PostgreSQL. Each operation is as few statements as it can be: a create is
 * one statement (two when the card number exists), an update one. Uniqueness is the database's
 * (constraints, ON CONFLICT), never check-then-insert, so concurrent requests from several
 * institutions, on several servers, cannot make two users of one person.
 */
export function createPostgresStorage(pool: pg.Pool): Storage {
  // Named, so each connection parses a statement once and reuses it (a prepared statement).
  const query = async <Row extends object>(name: string, text: string, values: unknown[]) =>
    (await pool.query<Row>({ name, text, values })).rows;

  return {
    async createOrAddUser(institutionId, details) {
      for (let attempt = 1; attempt <= createAttempts; attempt++) {
        const [created] = await query<UserRow>('create-user', createSql, [
          ...userColumnValues(details, postgresCodec),
          ...accountValues(details.account),
          institutionId,
        ]);
        if (created) return { created: true, user: toStoredUser(created, postgresCodec) };
        const [row] = await query<ExistingRow>('recognize-user', recognizeSql, [
          institutionId,
          details.ghanaCardNumber,
          details.mobileNumber,
          details.email,
        ]);
        if (row?.id) {
          const recognition = recognize(
            { isMember: row.is_member === true, mobileNumber: row.mobile_number },
            details.mobileNumber,
          );
          if (recognition === 'refuse') throw new ExistsWithOtherDetailsError();
          return { created: false, user: toStoredUser(row, postgresCodec) };
        }
        if (row?.email_taken) throw new ConflictError('email');
      }
      throw new Error(`Creating a user did not settle in ${createAttempts} attempts`);
    },

    async updateUser(institutionId, userId, details) {
      // Not a uuid cannot name a user; asking PostgreSQL would only raise invalid_text_representation.
      if (!uuidPattern.test(userId)) return null;
      try {
        const [row] = await query<UserRow>('update-user', updateSql, [
          userId,
          institutionId,
          ...userColumnValues(details, postgresCodec),
          ...accountValues(details.account),
        ]);
        return row ? toStoredUser(row, postgresCodec) : null;
      } catch (error) {
        const { code, constraint } = error as { code?: string; constraint?: string };
        const field = code === '23505' && constraint && conflictFieldByConstraint[constraint];
        throw field ? new ConflictError(field) : error;
      }
    },

    async findCredential(publicKey) {
      const [row] = await query<{ institution_id: string; name: string; secret_key: string }>(
        'find-credential',
        `SELECT c.institution_id, i.name, c.secret_key
         FROM credentials c JOIN institutions i ON i.id = c.institution_id
         WHERE c.public_key = $1`,
        [publicKey],
      );
      return row
        ? { institutionId: row.institution_id, institution: row.name, secretKey: row.secret_key }
        : null;
    },

    upsertCredentials: (list) =>
      inPostgresTransaction(pool, async (client) => {
        for (const credential of list) {
          // DO UPDATE rather than DO NOTHING, so that RETURNING gives the existing row's id too.
          const { rows } = await client.query<{ id: string }>(
            `INSERT INTO institutions (name) VALUES ($1)
             ON CONFLICT (name) DO UPDATE SET name = excluded.name
             RETURNING id`,
            [credential.institution],
          );
          await client.query(
            `INSERT INTO credentials (public_key, institution_id, secret_key) VALUES ($1, $2, $3)
             ON CONFLICT (public_key) DO UPDATE
               SET institution_id = excluded.institution_id, secret_key = excluded.secret_key`,
            [credential.publicKey, rows[0]?.id, credential.secretKey],
          );
        }
      }),

    async countInstitutions() {
      const [row] = await query<{ count: number }>(
        'count-institutions',
        'SELECT count(*)::integer AS count FROM institutions',
        [],
      );
      return row?.count ?? 0;
    },

    async ping() {
      await pool.query('SELECT 1');
    },

    close: () => pool.end(),
  };
}

/** A row of recognizeSql: the user with this card number, if any. */
type ExistingRow = UserRow & { is_member: boolean | null; email_taken: boolean };

function accountValues(account: AccountDetails | null): (string | null)[] {
  return account
    ? [account.type, account.number, account.network, account.bankName, account.name]
    : [null, null, null, null, null];
}

/**
 * Connects to the PostgreSQL `connectionString` names, brings its schema up to date with
 * migrations/postgres/, and returns the storage on it.
 */
export async function openPostgresStorage(
  connectionString: string,
  onIdleError?: (error: Error) => void,
): Promise<Storage> {
  const migrations = await loadMigrations(migrationsDir('postgres'));
  const pool = openPostgresPool(connectionString, onIdleError);
  try {
    await migratePostgres(pool, migrations);
  } catch (error) {
    await pool.end();
    throw error;
  }
  return createPostgresStorage(pool);
}
