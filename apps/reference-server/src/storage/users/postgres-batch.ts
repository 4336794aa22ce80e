/**
 * What the users' batched writes on PostgreSQL share (creates: postgres-users.ts, updates:
 * postgres-user-updates.ts): each batch is ONE statement over a JSON array of rows ($1), whose
 * requests' nonces, when any carries one, are claimed by that same statement ($2: the batch's
 * clock; nonces/postgres-nonces.ts).
 *
 * @module
 */
import {
  batchClock,
  claimNoncesCtes,
  type NonceClaimed,
  nonceClaimFields,
  wonClaims,
} from '../nonces/postgres-nonces.js';
import { recordColumns } from '../postgres-database.js';
import type { NonceClaim } from '../types.js';

/**
 * The opening of a batch's statement: `WITH input AS (` the rows of $1, read as `fields`; when
 * `claiming`, each row's nonce too, the CTEs that claim them, and `fresh`, the rows whose nonce was
 * claimed or that carried none. `source` is the relation the writes read (`fresh` or `input`); the
 * statement goes on with `), next AS (`.
 */
export function batchInput(
  fields: Record<string, string>,
  claiming: boolean,
): { opening: string; source: 'fresh' | 'input' } {
  const input = `
  WITH input AS (
    SELECT * FROM json_to_recordset($1::json)
      AS r(${recordColumns(claiming ? { ...fields, ...nonceClaimFields } : fields)})`;
  if (!claiming) return { opening: input, source: 'input' };
  return {
    opening: `${input}
  ), ${claimNoncesCtes('$2')}, fresh AS (
    SELECT * FROM input WHERE nonce IS NULL OR i IN (${wonClaims})`,
    source: 'fresh',
  };
}

/** A batch's statement, named (prepared once per connection), without and with nonce claims. */
export interface BatchStatement {
  plain: { name: string; text: string };
  claiming: { name: string; text: string };
}

/** The two forms of statement `name`, from its text with and without claims. */
export function batchStatement(name: string, text: (claiming: boolean) => string): BatchStatement {
  return {
    plain: { name, text: text(false) },
    claiming: { name: `${name}-claiming`, text: text(true) },
  };
}

/** A named statement's rows (postgres-users.ts). */
export type NamedQuery = <Row extends object>(
  name: string,
  text: string,
  values: unknown[],
) => Promise<Row[]>;

/**
 * Sends `rows` in `statement`: the claiming form when one of `nonces` is a claim, telling
 * `claimed` of each (the purge), the plain form otherwise.
 */
export async function sendBatch<Row extends object>(
  query: NamedQuery,
  claimed: NonceClaimed,
  statement: BatchStatement,
  rows: readonly object[],
  nonces: readonly (NonceClaim | undefined)[],
): Promise<Row[]> {
  const claims = nonces.filter((nonce): nonce is NonceClaim => nonce !== undefined);
  if (claims.length === 0) {
    return query<Row>(statement.plain.name, statement.plain.text, [JSON.stringify(rows)]);
  }
  for (const claim of claims) claimed(claim.now);
  return query<Row>(statement.claiming.name, statement.claiming.text, [
    JSON.stringify(rows),
    batchClock(claims),
  ]);
}
