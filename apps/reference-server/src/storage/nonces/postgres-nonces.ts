import type pg from 'pg';
import { batcher } from '../batcher.js';
import { postgresBatches } from '../postgres-database.js';
import type { NonceClaim, Storage } from '../types.js';
import { noncePurge } from './nonce-purge.js';

/**
 * $1 a JSON array of claims `{ i, public_key, nonce, expires_at }`, $2 now: inserts each claim's
 * nonce, or takes over a row of it that expired by now, and returns the `i` of the claims that got
 * their nonce. A nonce claimed twice in one batch counts for its first claim only (DISTINCT ON;
 * an upsert may not touch one row twice in a statement). Rows are written in key order, so that
 * batches of several processes take their locks in one order; a claim of a nonce that another
 * transaction is inserting waits for it, and then finds it taken (or takes it, if that one rolled
 * back): exactly one claim of a nonce wins, in any number of processes.
 */
const claimNoncesSql = `
  WITH input AS (
    SELECT * FROM json_to_recordset($1::json)
      AS r(i integer, public_key text, nonce text, expires_at timestamptz)
  ), first AS (
    SELECT DISTINCT ON (public_key, nonce) * FROM input ORDER BY public_key, nonce, i
  ), claimed AS (
    INSERT INTO message_signature_nonces AS old (public_key, nonce, expires_at)
    SELECT public_key, nonce, expires_at FROM first ORDER BY public_key, nonce
    ON CONFLICT (public_key, nonce) DO UPDATE SET expires_at = excluded.expires_at
      WHERE old.expires_at <= $2
    RETURNING public_key, nonce
  )
  SELECT first.i FROM first JOIN claimed USING (public_key, nonce)`;

/**
 * $1 now, $2 how many at most: deletes the oldest expired nonces (through the index on
 * expires_at), skipping rows that a claim or another process's purge holds.
 */
const purgeNoncesSql = `
  DELETE FROM message_signature_nonces WHERE ctid = ANY (ARRAY (
    SELECT ctid FROM message_signature_nonces WHERE expires_at <= $1
    ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED))`;

/**
 * The message signatures' nonces on PostgreSQL: claimed through `noncePool`, purged through `pool`
 * (see nonce-purge.ts).
 */
export function postgresNonces(pool: pg.Pool, noncePool: pg.Pool): Pick<Storage, 'claimNonce'> {
  /**
   * The nonce claims asked for at the same time go out together, as one statement (one round trip,
   * one commit), as creates do: a signed request claims its nonce before anything else is done.
   *
   * On `noncePool` (openPostgresStorage: connections with synchronous_commit=off) a claim's commit
   * does not wait for its log to reach the disk, so a request does not wait for two flushes, its
   * nonce's and its write's. That loses no nonce that matters: PostgreSQL's log is one sequence,
   * and the claim committed before the request went on, so the flush that makes the request's
   * write durable (its own commit, synchronous) makes the claim durable too. A crash can lose only
   * claims of the last fraction of a second whose requests wrote nothing that survived: replaying
   * one of those does what never happened, once more.
   */
  const claimNonce = batcher(
    async (claims: NonceClaim[]): Promise<PromiseSettledResult<boolean>[]> => {
      const rows = claims.map(({ publicKey, nonce, expiresAt }, i) => ({
        i,
        public_key: publicKey,
        nonce,
        expires_at: expiresAt.toISOString(),
      }));
      // One clock for the batch: the latest of its claims' (they were asked for within a tick).
      const now = new Date(Math.max(...claims.map((claim) => claim.now.getTime())));
      const { rows: claimed } = await noncePool.query<{ i: number }>({
        name: 'claim-nonces',
        text: claimNoncesSql,
        values: [JSON.stringify(rows), now],
      });
      const fresh = new Set(claimed.map((row) => row.i));
      return claims.map((_, i) => ({ status: 'fulfilled', value: fresh.has(i) }));
    },
    postgresBatches,
  );
  const purge = noncePurge();

  return {
    async claimNonce(claim) {
      if (purge.due()) {
        // Not awaited: the request does not wait for it, and a failure deletes nothing (the next
        // purge will). Other processes' purges skip the rows this one locked.
        pool
          .query({ name: 'purge-nonces', text: purgeNoncesSql, values: [claim.now, purge.batch] })
          .catch(() => {});
      }
      return claimNonce(claim);
    },
  };
}
