import type { DatabaseSync } from 'node:sqlite';
import type { RunInGroupCommit } from '../sqlite-database.js';
import type { NonceClaim, Storage } from '../types.js';
import { noncePurge } from './nonce-purge.js';

/**
 * Records a nonce inside the transaction the caller runs in (a work of the group commit): true
 * when it was not recorded yet, or only until a time now past (see {@link Storage.claimNonce}).
 */
export type ClaimNonceIn = (claim: NonceClaim) => boolean;

/**
 * The claim of a nonce on the embedded database `db`, as a statement run inside a write: by
 * {@link sqliteNonces} alone, or by a user's write first thing (users/sqlite-users.ts), so that a
 * signed request's nonce and its write are one commit. The works of one group run one after the
 * other in one transaction, so of two claims of a nonce the first inserts it and the second finds
 * it (no lookup before, no list of claims in flight).
 */
export function sqliteNonceClaimer(db: DatabaseSync): ClaimNonceIn {
  // public key, nonce, expiry, now: a row expired by now is taken over (changes 1), a live one
  // is left as it is (changes 0).
  const claim = db.prepare(`
    INSERT INTO message_signature_nonces (public_key, nonce, expires_at) VALUES (?, ?, ?)
    ON CONFLICT (public_key, nonce) DO UPDATE SET expires_at = excluded.expires_at
      WHERE message_signature_nonces.expires_at <= ?`);
  // now, how many at most: the oldest expired nonces, through the index on expires_at
  const purgeNonces = db.prepare(`
    DELETE FROM message_signature_nonces WHERE (public_key, nonce) IN (
      SELECT public_key, nonce FROM message_signature_nonces WHERE expires_at <= ?
      ORDER BY expires_at LIMIT ?)`);
  const purge = noncePurge();
  return ({ publicKey, nonce, expiresAt, now }) => {
    const iso = now.toISOString();
    const { changes } = claim.run(publicKey, nonce, expiresAt.toISOString(), iso);
    if (purge.due()) purgeNonces.run(iso, purge.batch);
    return changes === 1;
  };
}

/** The claims of nonces that no write carries, on the embedded database, by `inTransaction`. */
export function sqliteNonces(
  claimIn: ClaimNonceIn,
  inTransaction: RunInGroupCommit,
): Pick<Storage, 'claimNonce'> {
  return {
    /**
     * In the next group commit, settling once COMMIT returned, without waiting for the flush: the
     * claim of a request that writes nothing (refused, or answered without a write), whose loss
     * in a crash lets a replay do once what never happened. A later write's flush makes it
     * durable too (one log, in order).
     */
    claimNonce: (claim) => inTransaction(() => claimIn(claim), { committedIsEnough: true }),
  };
}
