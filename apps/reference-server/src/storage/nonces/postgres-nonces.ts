import type pg from 'pg';
import { batcher } from '../batcher.js';
import { postgresBatches } from '../postgres-database.js';
import type { NonceClaim, Storage } from '../types.js';
import { noncePurge } from './nonce-purge.js';

/**
 * The INSERT that claims nonces, in a statement of its own or as a CTE of a user's write
 * (users/postgres-users.ts): inserts each row `rows` selects (`public_key, nonce, expires_at`, in
 * key order, so that statements of several processes take their locks in one order), or takes over
 * a row of its nonce that expired by `now`; returns the `public_key, nonce` of each it claimed. A
 * claim of a nonce that another transaction is inserting waits for it, and then finds it taken
 * (or takes it, if that one rolled back): exactly one claim of a nonce wins, in any number of
 * processes. `rows` must not name a nonce twice (an upsert may not touch one row twice in a
 * statement).
 */
export const claimNoncesInsert = (rows: string, now: string) => `
    INSERT INTO message_signature_nonces AS old (public_key, nonce, expires_at)
    ${rows}
    ON CONFLICT (public_key, nonce) DO UPDATE SET expires_at = excluded.expires_at
      WHERE old.expires_at <= ${now}
    RETURNING public_key, nonce`;

/**
 * $1 a JSON array of claims `{ i, public_key, nonce, expires_at }`, $2 now: claims each nonce and
 * returns the `i` of the claims that got theirs. A nonce claimed twice in one batch counts for its
 * first claim only (DISTINCT ON).
 */
const claimNoncesSql = `
  WITH input AS (
    SELECT * FROM json_to_recordset($1::json)
      AS r(i integer, public_key text, nonce text, expires_at timestamptz)
  ), first AS (
    SELECT DISTINCT ON (public_key, nonce) * FROM input ORDER BY public_key, nonce, i
  ), claimed AS (${claimNoncesInsert(
    'SELECT public_key, nonce, expires_at FROM first ORDER BY public_key, nonce',
    '$2',
  )}
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
 * Told of each nonce claimed, wherever (see nonce-purge.ts): every so often deletes expired
 * nonces through `pool`. Not awaited: no request waits for it, and a failure deletes nothing (the
 * next purge will). Other processes' purges skip the rows this one locked.
 */
export type NonceClaimed = (now: Date) => void;

/** A {@link NonceClaimed} that purges through `pool`. */
export function postgresNoncePurger(pool: pg.Pool): NonceClaimed {
  const purge = noncePurge();
  return (now) => {
    if (!purge.due()) return;
    pool
      .query({ name: 'purge-nonces', text: purgeNoncesSql, values: [now, purge.batch] })
      .catch(() => {});
  };
}

/**
 * The claims of nonces that no write carries (the requests answered without one: refused, not
 * valid, in conflict), on PostgreSQL through `pool`; a write claims its request's nonce itself
 * (users/postgres-users.ts). `claimed` purges.
 */
export function postgresNonces(pool: pg.Pool, claimed: NonceClaimed): Pick<Storage, 'claimNonce'> {
  /**
   * The claims asked for at the same time go out together, as one statement (one round trip, one
   * commit), as creates do.
   */
  const claimNonce = batcher(
    async (claims: NonceClaim[]): Promise<PromiseSettledResult<boolean>[]> => {
      const rows = claims.map(({ publicKey, nonce, expiresAt }, i) => ({
        i,
        public_key: publicKey,
        nonce,
        expires_at: expiresAt.toISOString(),
      }));
      const { rows: won } = await pool.query<{ i: number }>({
        name: 'claim-nonces',
        text: claimNoncesSql,
        values: [JSON.stringify(rows), batchClock(claims)],
      });
      const fresh = new Set(won.map((row) => row.i));
      return claims.map((_, i) => ({ status: 'fulfilled', value: fresh.has(i) }));
    },
    postgresBatches,
  );

  return {
    claimNonce(claim) {
      claimed(claim.now);
      return claimNonce(claim);
    },
  };
}

/** One clock for a batch of claims: the latest of theirs (they were asked for within a tick). */
export function batchClock(claims: readonly Pick<NonceClaim, 'now'>[]): Date {
  return new Date(Math.max(...claims.map((claim) => claim.now.getTime())));
}
