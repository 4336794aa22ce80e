import type pg from 'pg';
import { batcher } from '../batcher.js';
import { postgresFault } from '../health/postgres-faults.js';
import { newId } from '../new-id.js';
import { type NonceClaimed, nonceClaimFields, nonceClaimRow } from '../nonces/postgres-nonces.js';
import { postgresBatches } from '../postgres-database.js';
import {
  ConflictError,
  type NonceClaim,
  ReplayedNonceError,
  type Storage,
  type StoredUser,
  type UserDetails,
} from '../types.js';
import { batchInput, batchStatement, sendBatch } from './postgres-batch.js';
import { postgresCodec, userWriteFields } from './postgres-columns.js';
import { postgresUserUpdates } from './postgres-user-updates.js';
import { recognizeOrRefuse } from './recognition.js';
import {
  accountValues,
  accountWritableColumns,
  prefixedAccountColumns,
  toStoredUser,
  type UserRow,
  userColumnRecord,
  userColumns,
  userWritableColumns,
} from './user-rows.js';

/** The user columns of table `alias` and its account's (`a`), as UserRow. */
const userRowColumns = (alias: string) => `${userColumns(alias)}, ${prefixedAccountColumns('a')}`;

/** The fields of one create in the JSON array of {@link createSql}, beside the user's columns. */
const createFields = { ...userWriteFields, account_id: 'uuid' };

/**
 * New users with their accounts and memberships, for one create or several, in ONE statement (one
 * round trip, no explicit transaction: a statement is atomic). $1 is a JSON array of
 * {@link createFields} objects, `i` their place in it. Without a conflict target, DO NOTHING covers
 * both unique keys: the card number (the same person, maybe being created by another institution
 * at this very moment: PostgreSQL waits for that transaction, then does nothing) and the email
 * (someone else's); such a create is not in the result, and {@link recognizeSql} finds out which.
 * Users are inserted in card-number order, so that batches on different servers take the card
 * numbers' locks in one order; a create is matched to its user by the id it brought.
 *
 * `claiming`: the creates may carry their requests' nonces ({@link nonceClaimFields}; $2 now), claimed
 * in the same statement (nonces/postgres-nonces.ts), so that a signed request's nonce and its
 * write are one round trip and one commit. A create whose nonce is not claimed (used before, or
 * by an earlier create of the batch) writes nothing, and comes back with no `created_at`; one
 * whose nonce is claimed but whose user exists is not in the result, as any such create.
 *
 * It returns only which creates it inserted, and when: the rest of a new user is what the create
 * sent, stored as sent (text columns give back the text they took, and the details document the
 * JSON it took: strings as they were, numbers as the shortest text that reads back as the same
 * double), so reading it back would be work for PostgreSQL and for this process, on every
 * create, to learn nothing. The creation time is `now()`, the statement's
 * transaction's start, which the `created_at` of both users and accounts default to: read once
 * per row here rather than returned by each insert and joined back.
 */
const createSql = (claiming: boolean) => {
  const { opening, source } = batchInput(createFields, claiming);
  return `${opening}
  ), u AS (
    INSERT INTO users (id, ${userWritableColumns.join(', ')})
    SELECT id, ${userWritableColumns.join(', ')} FROM ${source} ORDER BY ghana_card_number
    ON CONFLICT DO NOTHING
    RETURNING id
  ), created AS (
    SELECT ${source}.* FROM u JOIN ${source} USING (id)
  ), a AS (
    INSERT INTO accounts (id, user_id, ${accountWritableColumns.join(', ')})
    SELECT account_id, id, ${accountWritableColumns.map((column) => `account_${column}`).join(', ')}
    FROM created WHERE account_type IS NOT NULL
  ), membership AS (
    INSERT INTO memberships (institution_id, user_id) SELECT institution_id, id FROM created
  )
  SELECT i, now() AS created_at FROM created${
    claiming
      ? `
  UNION ALL SELECT i, NULL FROM input WHERE i NOT IN (SELECT i FROM fresh)`
      : ''
  }`;
};
const createUsers = batchStatement('create-users', createSql);

/** What {@link createSql} returns of each user it inserted (and, claiming, each replay: null). */
interface InsertedRow {
  i: number;
  created_at: Date | null;
}

/** One create, as {@link createSql} takes it. */
interface NewUser {
  institutionId: string;
  details: UserDetails;
  nonce?: NonceClaim | undefined;
}

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

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * How often a create retries when its card number was taken and then gone again (another user's
 * update moved it away between the two statements): in practice never more than once.
 */
const createAttempts = 3;

/** What the users' writes need of the nonces' side (nonces/postgres-nonces.ts). */
export interface PostgresUserNonces {
  /** Told of each nonce a write claimed (the purge). */
  claimed: NonceClaimed;
  /** A claim of its own, for a write that finds its answer without its claiming statement. */
  claimNonce: Storage['claimNonce'];
}

/**
 * The users on PostgreSQL, through `pool`. Each call is as few statements as it can be: a create
 * is one statement (two when the card number exists), shared with the creates asked for at the
 * same time; an update is one, shared with the updates asked for at the same time. A signed request's nonce is claimed by that same statement.
 * Uniqueness is the database's (constraints, ON CONFLICT), never check-then-insert, so concurrent
 * requests from several institutions, on several servers, cannot make two users of one person.
 */
export function postgresUsers(
  pool: pg.Pool,
  nonces: PostgresUserNonces,
): Pick<Storage, 'createOrAddUser' | 'updateUser'> {
  // Named, so each connection parses a statement once and reuses it (a prepared statement).
  const query = async <Row extends object>(name: string, text: string, values: unknown[]) =>
    (await pool.query<Row>({ name, text, values })).rows;

  /**
   * createSql for these creates: the stored user of each, undefined for those it skipped, a
   * ReplayedNonceError for those whose nonce was used.
   */
  const insertUsers = async (
    creates: NewUser[],
  ): Promise<PromiseSettledResult<StoredUser | undefined>[]> => {
    const rows = creates.map(createRow);
    const inserted = await sendBatch<InsertedRow>(
      query,
      nonces.claimed,
      createUsers,
      rows,
      creates.map(({ nonce }) => nonce),
    );
    const users: PromiseSettledResult<StoredUser | undefined>[] = creates.map(() => ({
      status: 'fulfilled',
      value: undefined,
    }));
    for (const { i, created_at } of inserted) {
      const row = rows[i];
      const create = creates[i];
      if (!row || !create) continue;
      users[i] = created_at
        ? { status: 'fulfilled', value: storedUserOf(create.details, row, created_at) }
        : { status: 'rejected', reason: new ReplayedNonceError() };
    }
    return users;
  };

  /**
   * Creates asked for while others are on their way to PostgreSQL go out together, as one
   * statement: fewer round trips and one transaction where there were many (docs/storage.md,
   * "Production: PostgreSQL").
   */
  const insertUser = batcher(
    async (creates: NewUser[]): Promise<PromiseSettledResult<StoredUser | undefined>[]> => {
      try {
        return await insertUsers(creates);
      } catch (error) {
        // A database that is down fails each create alone too, only later.
        if (creates.length === 1 || postgresFault(error)) throw error;
        // The batch failed as a whole (one of its creates broke a constraint, say): each of its
        // creates tries alone, so that only the one at fault fails.
        return Promise.all(
          creates.map((create) =>
            insertUsers([create]).then(
              ([inserted]) => inserted as PromiseSettledResult<StoredUser | undefined>,
              (reason: unknown) => ({ status: 'rejected' as const, reason }),
            ),
          ),
        );
      }
    },
    postgresBatches,
  );

  /** The nonce claimed alone: when the write's statement did not run, or was undone. */
  const claimAlone = async (nonce: NonceClaim | undefined) => {
    if (nonce && !(await nonces.claimNonce(nonce))) throw new ReplayedNonceError();
  };

  const updateUser = postgresUserUpdates({ query, nonces, claimAlone });

  return {
    async createOrAddUser(institutionId, details, nonce) {
      for (let attempt = 1; attempt <= createAttempts; attempt++) {
        // The first attempt claims the nonce, whatever it finds; a retry must not claim it again.
        const created = await insertUser({
          institutionId,
          details,
          nonce: attempt === 1 ? nonce : undefined,
        });
        if (created) return { created: true, user: created };
        const [row] = await query<ExistingRow>('recognize-user', recognizeSql, [
          institutionId,
          details.ghanaCardNumber,
          details.mobileNumber,
          details.email,
        ]);
        if (row?.id) {
          // Throws when refused; a join was made by recognizeSql.
          recognizeOrRefuse(
            { isMember: row.is_member === true, mobileNumber: row.mobile_number },
            details.mobileNumber,
          );
          return { created: false, user: toStoredUser(row, postgresCodec) };
        }
        if (row?.email_taken) throw new ConflictError('email');
      }
      throw new Error(`Creating a user did not settle in ${createAttempts} attempts`);
    },

    async updateUser(institutionId, userId, details, nonce) {
      // Not a uuid cannot name a user; asking PostgreSQL would only raise invalid_text_representation.
      if (!uuidPattern.test(userId)) {
        await claimAlone(nonce);
        return null;
      }
      return updateUser({ institutionId, userId, details, nonce });
    },
  };
}

/**
 * One create as an element of createSql's JSON array (its {@link createFields} and
 * {@link nonceClaimFields}): the columns of its user and account, their new ids and its nonce, in one
 * object literal, so every row has one shape.
 */
function createRow({ institutionId, details, nonce }: NewUser, i: number) {
  const { account } = details;
  const [account_type, account_number, account_details] = accountValues(account, postgresCodec);
  return {
    i,
    id: newId(),
    institution_id: institutionId,
    ...userColumnRecord(details, postgresCodec),
    account_id: account ? newId() : null,
    account_type,
    account_number,
    account_details,
    ...nonceClaimRow(nonce),
  };
}

/**
 * A user createSql inserted: what the create sent, with the ids it brought, the documents at the
 * column's default (none) and the creation time of the user and its account (createSql).
 */
function storedUserOf(
  details: UserDetails,
  { id, account_id }: ReturnType<typeof createRow>,
  createdAt: Date,
): StoredUser {
  const { account } = details;
  return {
    ...details,
    id,
    documents: [],
    createdAt,
    account: account && account_id ? { ...account, id: account_id, createdAt } : null,
  };
}

/** A row of recognizeSql: the user with this card number, if any. */
type ExistingRow = UserRow & { is_member: boolean | null; email_taken: boolean };
