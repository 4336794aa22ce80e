import type { DatabaseSync } from 'node:sqlite';
import { getRow, type RunInGroupCommit } from '../sqlite-database.js';
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
  // public key, nonce, now: whether the nonce is recorded and not expired
  const live = db.prepare(`
    SELECT 1 AS live FROM message_signature_nonces
    WHERE public_key = ? AND nonce = ? AND expires_at > ?`);
  // now, how many at most: the oldest expired nonces, through the index on expires_at
  const purgeNonces = db.prepare(`
    DELETE FROM message_signature_nonces WHERE (public_key, nonce) IN (
      SELECT public_key, nonce FROM message_signature_nonces WHERE expires_at <= ?
      ORDER BY expires_at LIMIT ?)`);
  const purge = noncePurge();
  /**
   * The nonces this process claimed whose rows are not committed yet (public key and nonce →
   * expiry, ms). The embedded database serves one server process (../sqlite-server-lock.ts), so a
   * claim is decided at once, from the table and this map, in one turn of the event loop that no
   * other claim can interleave with; its row is written with the next group commit, most often
   * the request's own write, instead of a commit of its own. The flush that makes the request's
   * write durable makes its nonce durable too (one log, in order); a crash loses only the nonces of
   * requests whose writes it lost too, or that wrote nothing.
   */
  const pendingNonces = new Map<string, number>();
  return {
    claimNonce: async ({ publicKey, nonce, expiresAt, now }) => {
      const key = `${publicKey}\n${nonce}`;
      const at = now.getTime();
      if ((pendingNonces.get(key) ?? 0) > at) return false;
      if (getRow(live, publicKey, nonce, now.toISOString())) return false;
      pendingNonces.set(key, expiresAt.getTime());
      const forget = () => {
        if (pendingNonces.get(key) === expiresAt.getTime()) pendingNonces.delete(key);
      };
      // Recorded in the next group, which is the request's own write whenever it makes one (it
      // is queued in this same turn of the event loop), without waiting for it.
      inTransaction(
        () => {
          const iso = now.toISOString();
          claim.run(publicKey, nonce, expiresAt.toISOString(), iso);
          if (purge.due()) purgeNonces.run(iso, purge.batch);
        },
        { committedIsEnough: true },
      ).then(forget, forget);
      return true;
    },
  };
}
