import type { DatabaseSync } from 'node:sqlite';
import { newId } from '../new-id.js';
import type { ClaimNonceIn } from '../nonces/sqlite-nonces.js';
import { getRow, type RunInGroupCommit, sqliteNow } from '../sqlite-database.js';
import {
  type AccountDetails,
  ConflictError,
  isConflict,
  type NonceClaim,
  ReplayedNonceError,
  type Storage,
  type StoredUser,
} from '../types.js';
import { recognizeOrRefuse } from './recognition.js';
import {
  type AccountColumns,
  accountUpsert,
  accountValues,
  accountWritableColumns,
  type ColumnCodec,
  prefixedAccountColumns,
  toStoredUser,
  type UserColumns,
  type UserRow,
  userColumns,
  userColumnValues,
  userWritableColumns,
} from './user-rows.js';

/**
 * SQLite's side of the column types (see migrations/sqlite/): the details document and the
 * documents array are JSON text, timestamps ISO 8601 text.
 */
const sqliteCodec: ColumnCodec<string> = {
  toDocument: (document) => JSON.stringify(document),
  fromDocument: (value) => JSON.parse(value as string) as Record<string, unknown>,
  fromTimestamp: (value) => new Date(value as string),
  fromTextArray: (value) => JSON.parse(value as string) as string[],
};

/** SQLite's constraint error for a UNIQUE index (SQLITE_CONSTRAINT_UNIQUE). */
const uniqueViolation = 2067;

/** The users' statements, prepared once. `?` parameters, in the order written. */
function prepareStatements(db: DatabaseSync) {
  const userPlaceholders = userWritableColumns.map(() => '?').join(', ');
  return {
    // Without a conflict target, DO NOTHING covers both unique keys: the card number (the same
    // person) and the email (taken by someone else); which one it was is read afterwards.
    insertUser: db.prepare(`
      INSERT INTO users (id, ${userWritableColumns.join(', ')}) VALUES (?, ${userPlaceholders})
      ON CONFLICT DO NOTHING
      RETURNING ${userColumns('users')}`),
    insertMembership: db.prepare(
      'INSERT INTO memberships (institution_id, user_id) VALUES (?, ?) ON CONFLICT DO NOTHING',
    ),
    // institution, card number
    selectByCard: db.prepare(`
      SELECT ${userColumns('u')}, ${prefixedAccountColumns('a')},
        EXISTS (SELECT 1 FROM memberships m WHERE m.user_id = u.id AND m.institution_id = ?)
          AS is_member
      FROM users u LEFT JOIN accounts a ON a.user_id = u.id
      WHERE u.ghana_card_number = ?`),
    // the writable columns, then user, institution
    updateUser: db.prepare(`
      UPDATE users SET ${userWritableColumns.map((column) => `${column} = ?`).join(', ')},
        updated_at = ${sqliteNow}
      WHERE id = ?
        AND EXISTS (SELECT 1 FROM memberships m WHERE m.user_id = users.id AND m.institution_id = ?)
      RETURNING ${userColumns('users')}`),
    // email, user
    emailTakenByAnother: db.prepare(
      'SELECT EXISTS (SELECT 1 FROM users WHERE lower(email) = lower(?) AND id <> ?) AS taken',
    ),
    // account id, user, then the account's values: a new account, or the user's one updated
    upsertAccount: db.prepare(`
      INSERT INTO accounts (id, user_id, ${accountWritableColumns.join(', ')})
      VALUES (?, ?, ${accountWritableColumns.map(() => '?').join(', ')})
      ${accountUpsert('accounts')}
      RETURNING ${prefixedAccountColumns('accounts')}`),
    deleteAccount: db.prepare('DELETE FROM accounts WHERE user_id = ?'),
  };
}

/**
 * The users on the embedded database `db`: each call is one synchronous work of the group commit
 * `inTransaction`, so a check followed by a write sees no other write in between. A request's
 * nonce is claimed first thing in its work (`claimNonce`), so that a replay writes nothing and a
 * fresh nonce is committed with the write it carried.
 */
export function sqliteUsers(
  db: DatabaseSync,
  inTransaction: RunInGroupCommit,
  claimNonce: ClaimNonceIn,
): Pick<Storage, 'createOrAddUser' | 'updateUser'> {
  const sql = prepareStatements(db);
  const upsertAccount = (userId: string, account: AccountDetails) =>
    getRow<AccountColumns>(
      sql.upsertAccount,
      newId(),
      userId,
      ...accountValues(account, sqliteCodec),
    );

  /**
   * `write` as one work, after the claim of `nonce`. Each conflict is found before anything is
   * written, and is returned out of the work rather than thrown in it, so that its savepoint
   * keeps the claim: the nonce of a request answered 409 is recorded too.
   */
  const claimingWrite = async <T>(nonce: NonceClaim | undefined, write: () => T): Promise<T> => {
    const outcome = await inTransaction(() => {
      if (nonce && !claimNonce(nonce)) throw new ReplayedNonceError();
      try {
        return { value: write() };
      } catch (error) {
        if (isConflict(error)) return { conflict: error };
        throw error;
      }
    });
    if ('conflict' in outcome) throw outcome.conflict;
    return outcome.value;
  };

  return {
    createOrAddUser: (institutionId, details, nonce) =>
      claimingWrite(nonce, () => {
        const values = userColumnValues(details, sqliteCodec);
        const inserted = getRow<UserColumns>(sql.insertUser, newId(), ...values);
        if (inserted) {
          const account = details.account && upsertAccount(inserted.id, details.account);
          sql.insertMembership.run(institutionId, inserted.id);
          return { created: true, user: toStoredUser({ ...inserted, ...account }, sqliteCodec) };
        }
        const existing = getRow<UserRow & { is_member: number }>(
          sql.selectByCard,
          institutionId,
          details.ghanaCardNumber,
        );
        // In this transaction no other write ran: the card number is free, so the email was taken.
        if (!existing) throw new ConflictError('email');
        const recognition = recognizeOrRefuse(
          { isMember: existing.is_member === 1, mobileNumber: existing.mobile_number },
          details.mobileNumber,
        );
        if (recognition === 'join') sql.insertMembership.run(institutionId, existing.id);
        return { created: false, user: toStoredUser(existing, sqliteCodec) };
      }),

    updateUser: (institutionId, userId, details, nonce) =>
      claimingWrite(nonce, (): StoredUser | null => {
        let updated: UserColumns | undefined;
        try {
          updated = getRow<UserColumns>(
            sql.updateUser,
            ...userColumnValues(details, sqliteCodec),
            userId,
            institutionId,
          );
        } catch (error) {
          if ((error as { errcode?: number }).errcode !== uniqueViolation) throw error;
          // Which of the two unique values is taken: ask, rather than parse the message.
          const email = getRow<{ taken: number }>(sql.emailTakenByAnother, details.email, userId);
          throw new ConflictError(email?.taken === 1 ? 'email' : 'ghanaCardNumber');
        }
        if (!updated) return null;
        let account: AccountColumns | undefined;
        if (details.account) {
          account = upsertAccount(userId, details.account);
        } else {
          sql.deleteAccount.run(userId);
        }
        return toStoredUser({ ...updated, ...account }, sqliteCodec);
      }),
  };
}
