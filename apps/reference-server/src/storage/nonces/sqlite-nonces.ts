import type { DatabaseSync } from 'node:sqlite';
import type { RunInGroupCommit } from '../sqlite-database.js';
import type { Storage } from '../types.js';
import { noncePurge } from './nonce-purge.js';

/** The message signatures' nonces on the embedded database `db`, written by `inTransaction`. */
export function sqliteNonces(
  db: DatabaseSync,
  inTransaction: RunInGroupCommit,
): Pick<Storage, 'claimNonce'> {
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
  return {
    /**
     * Claimed by the insert itself, in the next group commit: the works of one group run one after
     * the other in one transaction, so of two claims of a nonce the first inserts it and the second
     * finds it (no lookup before, no list of claims in flight). The claim settles once COMMIT
     * returned, without waiting for the flush: the request's own write, in a later group, waits
     * for a flush that makes the claim durable too (one log, in order), so a crash loses only the
     * nonces of requests whose writes it lost too, or that wrote nothing.
     */
    claimNonce: ({ publicKey, nonce, expiresAt, now }) =>
      inTransaction(
        () => {
          const iso = now.toISOString();
          const { changes } = claim.run(publicKey, nonce, expiresAt.toISOString(), iso);
          if (purge.due()) purgeNonces.run(iso, purge.batch);
          return changes === 1;
        },
        { committedIsEnough: true },
      ),
  };
}
