/**
 * The updates of users on PostgreSQL: batched as creates are (postgres-users.ts), one statement
 * and one durable commit for the updates of different users asked for at the same time.
 *
 * @module
 */
import { batcher } from '../batcher.js';
import { postgresFault } from '../health/postgres-faults.js';
import { type NonceClaimed, nonceClaimFields, nonceClaimRow } from '../nonces/postgres-nonces.js';
import { postgresBatches } from '../postgres-database.js';
import {
  ConflictError,
  type NonceClaim,
  ReplayedNonceError,
  type StoredUser,
  type UserDetails,
} from '../types.js';
import { batchInput, batchStatement, type NamedQuery, sendBatch } from './postgres-batch.js';
import { conflictFieldByConstraint, postgresCodec, userWriteFields } from './postgres-columns.js';
import {
  accountUpsert,
  accountValues,
  accountWritableColumns,
  userColumnRecord,
  userWritableColumns,
} from './user-rows.js';

/**
 * Updates of users, one or several, in ONE statement (one round trip, one commit): $1 is a JSON
 * array of {@link userWriteFields} objects, `i` their place in it, no user twice (an UPDATE changes a
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
  const { opening, source } = batchInput(userWriteFields, claiming);
  return `${opening}
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
const updateUsersStatement = batchStatement('update-users', updateSql);

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
export interface UserUpdate {
  institutionId: string;
  userId: string;
  details: UserDetails;
  nonce?: NonceClaim | undefined;
}

/** What the updates need of the users' module: its named query, and the nonces' side. */
export interface PostgresUpdateDeps {
  /** A named (prepared) statement's rows. */
  query: NamedQuery;
  /** Told of each nonce a write claimed (the purge). */
  nonces: { claimed: NonceClaimed };
  /** The nonce claimed alone: when the write's statement did not run, or was undone. */
  claimAlone: (nonce: NonceClaim | undefined) => Promise<void>;
}

/**
 * One update at a time as callers see it (the stored user, null when not found), batched with
 * the updates asked for at the same time.
 */
export function postgresUserUpdates({
  query,
  nonces,
  claimAlone,
}: PostgresUpdateDeps): (update: UserUpdate) => Promise<StoredUser | null> {
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
    const updated = await sendBatch<UpdatedRow>(
      query,
      nonces.claimed,
      updateUsersStatement,
      rows,
      updates.map(({ nonce }) => nonce),
    );
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
  return batcher(
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
}

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

/** One update as an element of updateSql's JSON array (its {@link userWriteFields} and nonce). */
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
