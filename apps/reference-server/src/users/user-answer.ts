import type { StoredAccount, StoredUser } from '../storage/types.js';

/**
 * A stored user as `answerOf` (`@institution-api/runtime/user-details`) takes it: its details in
 * the request's shape, the account's fields among them, and the values of the service's own (its
 * id, documents and creation time; the account's id and creation time, or null for no account).
 */
export function answerParts(user: StoredUser): {
  details: Record<string, unknown>;
  own: Record<string, unknown>;
} {
  const { id, documents, createdAt, account, ...details } = user;
  const {
    id: accountId,
    createdAt: accountCreatedAt,
    ...accountFields
  } = account ?? ({} as Partial<StoredAccount>);
  return {
    details: { ...details, ...accountFields },
    own: {
      id,
      documents: [...documents],
      createdAt: createdAt.toISOString(),
      account: account && { id: accountId, createdAt: accountCreatedAt?.toISOString() },
    },
  };
}
