import type pg from 'pg';
import { batcher } from '../batcher.js';
import { postgresBatches, recordColumns } from '../postgres-database.js';
import type { NonceClaim, Storage } from '../types.js';
import { noncePurge } from './nonce-purge.js';

/**
 * The INSERT that claims nonces, in a statement of its own or as a CTE of users' writes
 * ({@link claimNoncesCtes}): inserts each row `rows` selects (`public_key, nonce, expires_at`, in
 * key order, so that statements of several processes take their locks in one order), or takes over
 * a row of its nonce that expired by `now`; returns the `public_key, nonce` of each it claimed. A
 * claim of a nonce that another transaction is inserting waits for it, and then finds it taken
 * (or takes it, if that one rolled back): exactly one claim of a nonce wins, in any number of
 * processes. `rows` must not name a nonce twice (an upsert may not touch one row twice in a
 * statement).
 */
const claimNoncesInsert = (rows: string, now: string) => `
    INSERT INTO message_signature_nonces AS old (public_key, nonce, expires_at)
    ${rows}
    ON CONFLICT (public_key, nonce) DO UPDATE SET expires_at = excluded.expires_at
      WHERE old.expires_at <= ${now}
    RETURNING public_key, nonce`;

/** A claim's fields in a JSON batch (json_to_recordset), beside those of the statement's own. */
export const nonceClaimFields = { public_key: 'text', nonce: 'text', expires_at: 'timestamptz' };

/** {@link nonceClaimFields} of a claim, all null without one (a row that claims nothing). */
export function nonceClaimRow(claim: NonceClaim | undefined) {
  return {
    public_key: claim?.publicKey ?? null,
    nonce: claim?.nonce ?? null,
    expires_at: claim?.expiresAt.toISOString() ?? null,
  };
}

/**
 * The CTEs `first_claims, claimed` that claim the nonces of a relation `input` of `i` and
 * {@link nonceClaimFields} (a null nonce claims nothing), as of `now`; {@link wonClaims} then
 * selects the `i` of the rows that got their nonce. A nonce twice in `input` counts for its first
 * row only (DISTINCT ON: an upsert may not touch one row twice in a statement).
 */
export const claimNoncesCtes = (now: string) => `first_claims AS (
    SELECT DISTINCT ON (public_key, nonce) i, public_key, nonce, expires_at
    FROM input WHERE nonce IS NOT NULL ORDER BY public_key, nonce, i
  ), claimed AS (${claimNoncesInsert(
    'SELECT public_key, nonce, expires_at FROM first_claims ORDER BY public_key, nonce',
    now,
  )}
  )`;

/** After {@link claimNoncesCtes}: the `i` of the rows whose nonce was claimed. */
export const wonClaims = 'SELECT i FROM first_claims JOIN claimed USING (public_key, nonce)';

/** $1 a JSON array of claims ({@link nonceClaimRow} and `i`), $2 now: the `i` of those that won. */
const claimNoncesSql = `
  WITH input AS (
    SELECT * FROM json_to_recordset($1::json)
      AS r(i integer, ${recordColumns(nonceClaimFields)})
  ), ${claimNoncesCtes('$2')}
  ${wonClaims}`;

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
      const rows = claims.map((claim, i) => ({ i, ...nonceClaimRow(claim) }));
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
