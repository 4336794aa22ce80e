import type pg from 'pg';
import { batcher } from '../batcher.js';
import { postgresFault } from '../health/postgres-faults.js';
import { newId } from '../new-id.js';
import {
  batchClock,
  claimNoncesCtes,
  type NonceClaimed,
  nonceClaimFields,
  nonceClaimRow,
  wonClaims,
} from '../nonces/postgres-nonces.js';
import { postgresBatches, recordColumns } from '../postgres-database.js';
import {
  ConflictError,
  type NonceClaim,
  ReplayedNonceError,
  type Storage,
  type StoredUser,
  type UserDetails,
} from '../types.js';
import { recognizeOrRefuse } from './recognition.js';
import {
  accountUpsert,
  accountValues,
  accountWritableColumns,
  type ColumnCodec,
  prefixedAccountColumns,
  toStoredUser,
  type UserRow,
  type UserWritableColumn,
  userColumnRecord,
  userColumns,
  userWritableColumns,
} from './user-rows.js';

/**
 * PostgreSQL's side of the column types (see migrations/postgres/), as pg reads them: the details
 * document is jsonb, which pg parses; written as the object itself (pg sends a parameter object as
 * JSON, and the batched create's JSON array holds it as it is).
 */
const postgresCodec: ColumnCodec<Record<string, unknown>> = {
  toDocument: (document) => document,
  fromDocument: (value) => value as Record<string, unknown>,
  fromTimestamp: (value) => value as Date,
  fromTextArray: (value) => value as string[],
};

/** Unique constraints of migrations/postgres/0001_initial.sql whose violation is the client's. */
const conflictFieldByConstraint: Record<string, ConflictError['field']> = {
  users_email_key: 'email',
  users_ghana_card_number_key: 'ghanaCardNumber',
};

/** The user columns of table `alias` and its account's (`a`), as UserRow. */
const userRowColumns = (alias: string) => `${userColumns(alias)}, ${prefixedAccountColumns('a')}`;

/** The SQL type of each writable column, for reading it out of a JSON batch. */
const userColumnTypes: Record<UserWritableColumn, string> = {
  email: 'text',
  mobile_number: 'text',
  ghana_card_number: 'text',
  details: 'jsonb',
};

/** The fields of one create in the JSON array of {@link createSql}, beside the user's columns. */
const createFields = {
  i: 'integer',
  id: 'uuid',
  institution_id: 'uuid',
  ...userColumnTypes,
  account_id: 'uuid',
  account_type: 'text',
  account_number: 'text',
  account_details: 'jsonb',
};

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
  const source = claiming ? 'fresh' : 'input';
  const claims = `
  ), ${claimNoncesCtes('$2')}, fresh AS (
    SELECT * FROM input WHERE nonce IS NULL OR i IN (${wonClaims})`;
  return `
  WITH input AS (
    SELECT * FROM json_to_recordset($1::json)
      AS r(${recordColumns(claiming ? { ...createFields, ...nonceClaimFields } : createFields)})${claiming ? claims : ''}
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
const createUsersSql = createSql(false);
const createClaimingUsersSql = createSql(true);

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

/** The fields of one update in the JSON array of {@link updateSql}, beside the user's columns. */
const updateFields = {
  i: 'integer',
  id: 'uuid',
  institution_id: 'uuid',
  ...userColumnTypes,
  account_type: 'text',
  account_number: 'text',
  account_details: 'jsonb',
};

/**
 * Updates of users, one or several, in ONE statement (one round trip, one commit): $1 is a JSON
 * array of {@link updateFields} objects, `i` their place in it, no user twice (an UPDATE changes a
 * row once per statement: {@link distinctRounds}). Only a member's user changes (`institution_id`).
 * The account is upserted: its id and creation time are kept when type and number are unchanged
 * (the same payout account with new details), replaced by new ones (`excluded`, the defaults)
 * otherwise; no account deletes it.
 *
 * The rows come sorted by user id, and each finds its user and its membership through their
 * indexes (the membership in a LATERAL subquery: as a join, PostgreSQL would hash the whole
 * table, taking the JSON array for 100 rows), so that statements of several batches and processes
 * lock the users they share in one order. On a small table PostgreSQL scans and hashes `users`
 * instead, which takes the locks in the table's order, one order too. A deadlock, should one
 * happen, fails the batch, and its updates are made one by one.
 *
 * `claiming`: the updates may carry their requests' nonces ({@link nonceClaimFields}; $2 now),
 * claimed in the same statement (nonces/postgres-nonces.ts): an update happens only if its nonce
 * was claimed. One row per update, in any order: `replayed` when its nonce was not claimed, else
 * what the database keeps of its user as updated ({@link UpdatedRow}), or no user (not found: not
 * a member, or no such user; its nonce claimed).
 */
const updateSql = (claiming: boolean) => {
  const source = claiming ? 'fresh' : 'input';
  const claims = `
  ), ${claimNoncesCtes('$2')}, fresh AS (
    SELECT * FROM input WHERE nonce IS NULL OR i IN (${wonClaims})`;
  return `
  WITH input AS (
    SELECT * FROM json_to_recordset($1::json)
      AS r(${recordColumns(claiming ? { ...updateFields, ...nonceClaimFields } : updateFields)})${claiming ? claims : ''}
  ), u AS (
    UPDATE users SET ${userWritableColumns.map((column) => `${column} = s.${column}`).join(', ')},
      updated_at = now()
    FROM ${source} s CROSS JOIN LATERAL (
      SELECT FROM memberships m WHERE m.user_id = s.id AND m.institution_id = s.institution_id LIMIT 1
    ) AS member
    WHERE users.id = s.id
    RETURNING s.i, s.account_type AS new_account_type, s.account_number AS new_account_number,
      s.account_details AS new_account_details, users.*
  ), a AS (
    INSERT INTO accounts AS old (user_id, ${accountWritableColumns.join(', ')})
    SELECT id, new_account_type, new_account_number, new_account_details
    FROM u WHERE new_account_type IS NOT NULL ORDER BY id
    ${accountUpsert('old')}
    RETURNING *
  ), removed AS (
    DELETE FROM accounts WHERE user_id IN (SELECT id FROM u WHERE new_account_type IS NULL)
  )
  SELECT input.i, ${claiming ? 'input.i NOT IN (SELECT i FROM fresh)' : 'false'} AS replayed,
    u.id, u.documents, u.created_at, a.id AS account_id, a.created_at AS account_created_at
  FROM input LEFT JOIN u ON u.i = input.i LEFT JOIN a ON a.user_id = u.id`;
};
const updateUsersSql = updateSql(false);
const updateClaimingUsersSql = updateSql(true);

/**
 * What {@link updateSql} returns of each update, beside what it sent (stored as sent: see
 * {@link createSql}): its place, whether it was a replay, and what the database keeps of the user it
 * updated (id null: none) and of its account.
 */
interface UpdatedRow {
  i: number;
  replayed: boolean;
  id: string | null;
  documents: string[] | null;
  created_at: Date | null;
  account_id: string | null;
  account_created_at: Date | null;
}

/** One update, as {@link updateSql} takes it. */
interface UserUpdate {
  institutionId: string;
  userId: string;
  details: UserDetails;
  nonce?: NonceClaim | undefined;
}

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
    const claims = creates.flatMap(({ nonce }) => (nonce ? [nonce] : []));
    for (const claim of claims) nonces.claimed(claim.now);
    const inserted =
      claims.length === 0
        ? await query<InsertedRow>('create-users', createUsersSql, [JSON.stringify(rows)])
        : await query<InsertedRow>('create-users-claiming', createClaimingUsersSql, [
            JSON.stringify(rows),
            batchClock(claims),
          ]);
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

  /**
   * updateSql for these updates (no user twice): the stored user of each, null for those it found
   * no user of, a ReplayedNonceError for those whose nonce was used. Throws when the statement
   * failed as a whole.
   */
  const updateUsers = async (
    updates: readonly UserUpdate[],
  ): Promise<PromiseSettledResult<StoredUser | null>[]> => {
    const rows = updates
      .map(updateRow)
      .sort((one, other) => (one.id < other.id ? -1 : one.id > other.id ? 1 : 0));
    const claims = updates.flatMap(({ nonce }) => (nonce ? [nonce] : []));
    for (const claim of claims) nonces.claimed(claim.now);
    const updated =
      claims.length === 0
        ? await query<UpdatedRow>('update-users', updateUsersSql, [JSON.stringify(rows)])
        : await query<UpdatedRow>('update-users-claiming', updateClaimingUsersSql, [
            JSON.stringify(rows),
            batchClock(claims),
          ]);
    const outcomes: (PromiseSettledResult<StoredUser | null> | undefined)[] = [];
    for (const row of updated) {
      const update = updates[row.i];
      if (!update) continue;
      outcomes[row.i] = row.replayed
        ? { status: 'rejected', reason: new ReplayedNonceError() }
        : { status: 'fulfilled', value: row.id ? updatedUserOf(update.details, row) : null };
    }
    return updates.map(
      (_, index) =>
        outcomes[index] ?? {
          status: 'rejected',
          reason: new Error('The statement gave this update no row'),
        },
    );
  };

  /**
   * One update alone: a unique value taken by another user is a ConflictError, its nonce
   * recorded on its own (the statement was undone with its claim).
   */
  const updateAlone = async (
    update: UserUpdate,
  ): Promise<PromiseSettledResult<StoredUser | null>> => {
    try {
      const [outcome] = await updateUsers([update]);
      if (!outcome) throw new Error('The statement gave this update no row');
      return outcome;
    } catch (error) {
      const { code, constraint } = error as { code?: string; constraint?: string };
      const field = code === '23505' && constraint && conflictFieldByConstraint[constraint];
      if (!field) return { status: 'rejected', reason: error };
      return claimAlone(update.nonce).then(
        () => ({ status: 'rejected', reason: new ConflictError(field) }),
        (reason: unknown) => ({ status: 'rejected', reason }),
      );
    }
  };

  /**
   * Updates asked for while others are on their way to PostgreSQL go out together, as creates do:
   * one statement and one commit for those of different users ({@link distinctRounds}: a user
   * updated twice at once is updated in a second statement, after the first). A batch that failed
   * as a whole (one of its updates took another user's email, say) is made again one update at a
   * time, so that only the one at fault fails; a fault of the database fails the updates of its
   * statement.
   */
  const updateUser = batcher(
    async (updates: UserUpdate[]): Promise<PromiseSettledResult<StoredUser | null>[]> => {
      const outcomes: PromiseSettledResult<StoredUser | null>[] = [];
      for (const round of distinctRounds(updates, (update) => update.userId.toLowerCase())) {
        const batch = round.map((index) => updates[index] as UserUpdate);
        let settled: PromiseSettledResult<StoredUser | null>[];
        try {
          settled =
            batch.length === 1
              ? [await updateAlone(batch[0] as UserUpdate)]
              : await updateUsers(batch);
        } catch (error) {
          settled = postgresFault(error)
            ? batch.map(() => ({ status: 'rejected', reason: error }))
            : await Promise.all(batch.map(updateAlone));
        }
        round.forEach((index, place) => {
          outcomes[index] = settled[place] as PromiseSettledResult<StoredUser | null>;
        });
      }
      return outcomes;
    },
    postgresBatches,
  );

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

/**
 * The places of `items` in rounds in which no key is twice, in order: an item whose key an
 * earlier item has goes to the round after that one's.
 */
export function distinctRounds<Item>(
  items: readonly Item[],
  key: (item: Item) => string,
): number[][] {
  const rounds: number[][] = [];
  const seen = new Map<string, number>();
  items.forEach((item, index) => {
    const k = key(item);
    const round = seen.get(k) ?? 0;
    seen.set(k, round + 1);
    if (round === rounds.length) rounds.push([]);
    rounds[round]?.push(index);
  });
  return rounds;
}

/** One update as an element of updateSql's JSON array (its {@link updateFields} and nonce). */
function updateRow({ institutionId, userId, details, nonce }: UserUpdate, i: number) {
  const [account_type, account_number, account_details] = accountValues(
    details.account,
    postgresCodec,
  );
  return {
    i,
    id: userId.toLowerCase(),
    institution_id: institutionId,
    ...userColumnRecord(details, postgresCodec),
    account_type,
    account_number,
    account_details,
    ...nonceClaimRow(nonce),
  };
}

/**
 * A user updateSql updated: the details the update sent, with what the database keeps (the id,
 * documents and creation time of the user, and of its account: kept or new).
 */
function updatedUserOf(
  details: UserDetails,
  { id, documents, created_at, account_id, account_created_at }: UpdatedRow,
): StoredUser {
  const { account } = details;
  return {
    ...details,
    id: id as string,
    documents: documents ?? [],
    createdAt: created_at as Date,
    account:
      account && account_id
        ? { ...account, id: account_id, createdAt: account_created_at as Date }
        : null,
  };
}
