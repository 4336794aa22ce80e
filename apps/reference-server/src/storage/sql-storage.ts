import { type Database, isPostgresError, type Queryable } from './database.js';
import { type AccountDetails, ConflictError, type Storage, type StoredUser } from './types.js';
import { selectUser, userColumnValues, userWritableColumns } from './user-rows.js';

/** Unique constraints of migrations/0001_initial.sql whose violation is the client's conflict. */
const conflictFieldByConstraint: Record<string, ConflictError['field']> = {
  users_email_key: 'email',
  users_ghana_card_number_key: 'ghanaCardNumber',
};

const placeholders = userWritableColumns.map((_, index) => `$${index + 1}`).join(', ');

/**
 * Without a conflict target, DO NOTHING covers both unique keys: the card number (the same person,
 * maybe created by another institution at this very moment; PostgreSQL waits for that transaction
 * and then does nothing) and the email (taken by someone else). Which one it was is read afterwards.
 */
const insertUserSql = `
  INSERT INTO users (${userWritableColumns.join(', ')}) VALUES (${placeholders})
  ON CONFLICT DO NOTHING
  RETURNING id`;

/** $1 user, $2 institution, then the writable columns: only a member of the institution changes. */
const updateUserSql = `
  UPDATE users SET ${userWritableColumns.map((column, index) => `${column} = $${index + 3}`).join(', ')},
    updated_at = now()
  WHERE id = $1
    AND EXISTS (SELECT 1 FROM memberships m WHERE m.user_id = users.id AND m.institution_id = $2)
  RETURNING id`;

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The {@link Storage} on any {@link Database}: the same SQL on PGlite and PostgreSQL. Uniqueness is
 * the database's (constraints, ON CONFLICT), never check-then-insert, so concurrent requests from
 * several institutions cannot make two users of one person. Each call is one transaction: an
 * explicit one when it runs several statements, the statement's own when it runs one.
 */
export function createSqlStorage(db: Database): Storage {
  return {
    createOrAddUser: (institutionId, details) =>
      db.transaction(async (tx) => {
        const [inserted] = await tx.query<{ id: string }>(insertUserSql, userColumnValues(details));
        let userId = inserted?.id;
        if (userId !== undefined) {
          if (details.account) await insertAccount(tx, userId, details.account);
        } else {
          const [existing] = await tx.query<{ id: string }>(
            'SELECT id FROM users WHERE ghana_card_number = $1',
            [details.ghanaCardNumber],
          );
          if (!existing) throw new ConflictError('email');
          userId = existing.id;
        }
        await tx.query(
          'INSERT INTO memberships (institution_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING',
          [institutionId, userId],
        );
        return { created: inserted !== undefined, user: await mustSelectUser(tx, userId) };
      }),

    async updateUser(institutionId, userId, details) {
      // Not a uuid cannot name a user; asking PostgreSQL would only raise invalid_text_representation.
      if (!uuidPattern.test(userId)) return null;
      return db.transaction(async (tx) => {
        const [updated] = await mapConflicts(() =>
          tx.query(updateUserSql, [userId, institutionId, ...userColumnValues(details)]),
        );
        if (!updated) return null;
        await replaceAccount(tx, userId, details.account);
        return mustSelectUser(tx, userId);
      });
    },

    async findCredential(publicKey) {
      const [row] = await db.query<{ institution_id: string; name: string; secret_key: string }>(
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
      db.transaction(async (tx) => {
        for (const credential of list) {
          // DO UPDATE rather than DO NOTHING, so that RETURNING gives the existing row's id too.
          const [institution] = await tx.query<{ id: string }>(
            `INSERT INTO institutions (name) VALUES ($1)
             ON CONFLICT (name) DO UPDATE SET name = excluded.name
             RETURNING id`,
            [credential.institution],
          );
          await tx.query(
            `INSERT INTO credentials (public_key, institution_id, secret_key) VALUES ($1, $2, $3)
             ON CONFLICT (public_key) DO UPDATE
               SET institution_id = excluded.institution_id, secret_key = excluded.secret_key`,
            [credential.publicKey, institution?.id, credential.secretKey],
          );
        }
      }),

    async countInstitutions() {
      const [row] = await db.query<{ count: number }>(
        'SELECT count(*)::integer AS count FROM institutions',
      );
      return row?.count ?? 0;
    },

    async ping() {
      await db.query('SELECT 1');
    },

    close: () => db.close(),
  };
}

/**
 * Keeps the account (its id and creation time) when type and number are unchanged, since it is the
 * same payout account with new details; any other account is a new one.
 */
async function replaceAccount(
  tx: Queryable,
  userId: string,
  account: AccountDetails | null,
): Promise<void> {
  const [current] = await tx.query<{ id: string; type: string; number: string }>(
    'SELECT id, type, number FROM accounts WHERE user_id = $1',
    [userId],
  );
  if (current && account && current.type === account.type && current.number === account.number) {
    await tx.query('UPDATE accounts SET network = $2, bank_name = $3, name = $4 WHERE id = $1', [
      current.id,
      account.network,
      account.bankName,
      account.name,
    ]);
    return;
  }
  if (current) await tx.query('DELETE FROM accounts WHERE id = $1', [current.id]);
  if (account) await insertAccount(tx, userId, account);
}

async function insertAccount(
  tx: Queryable,
  userId: string,
  account: AccountDetails,
): Promise<void> {
  await tx.query(
    `INSERT INTO accounts (user_id, type, number, network, bank_name, name)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [userId, account.type, account.number, account.network, account.bankName, account.name],
  );
}

/** Within the transaction that just wrote the user, so it exists. */
async function mustSelectUser(tx: Queryable, userId: string): Promise<StoredUser> {
  const user = await selectUser(tx, userId);
  if (!user) throw new Error(`User ${userId} vanished inside its own transaction`);
  return user;
}

/** Turns a unique violation of a user's email or card number into the client's ConflictError. */
async function mapConflicts<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    const field =
      isPostgresError(error, '23505') && error.constraint
        ? conflictFieldByConstraint[error.constraint]
        : undefined;
    throw field ? new ConflictError(field) : error;
  }
}
