import type pg from 'pg';
import { runLater } from '../flow.js';
import { inPostgresTransaction } from '../postgres-database.js';
import type { CredentialDatabase, CredentialStatements } from './credential-flows.js';
import {
  type CredentialRow,
  credentialRowColumns,
  type EventRow,
  sealedValues,
} from './credential-rows.js';

/** Every key pair's row with its institution's name; append a WHERE clause. */
const selectCredentialsSql = `SELECT ${credentialRowColumns}
  FROM credentials c JOIN institutions i ON i.id = c.institution_id`;

/** The key pairs' statements of PostgreSQL, on the transaction's `client`. */
function postgresCredentialStatements(client: pg.PoolClient): CredentialStatements {
  const rowsOf = async (text: string, values: unknown[] = []) =>
    (await client.query<CredentialRow>(text, values)).rows;
  return {
    async institutionId(name, create) {
      // DO UPDATE rather than DO NOTHING, so that RETURNING gives the existing row's id too.
      const { rows } = await client.query<{ id: string }>(
        create
          ? `INSERT INTO institutions (name) VALUES ($1)
             ON CONFLICT (name) DO UPDATE SET name = excluded.name
             RETURNING id`
          : 'SELECT id FROM institutions WHERE name = $1',
        [name],
      );
      return rows[0]?.id;
    },

    lockRows: (publicKeys) =>
      rowsOf(
        `${selectCredentialsSql} ${publicKeys ? 'WHERE c.public_key = ANY($1)' : ''}
         ORDER BY c.public_key FOR UPDATE OF c`,
        publicKeys ? [publicKeys] : [],
      ),

    rows: (publicKeys) =>
      rowsOf(`${selectCredentialsSql} WHERE c.public_key = ANY($1)`, [publicKeys]),

    async insert(write, expiresAt, ifAbsent) {
      const { rowCount } = await client.query(
        `INSERT INTO credentials (public_key, institution_id, secret_key_id, secret_nonce,
           secret_ciphertext, secret_tag, expires_at, signature_policy)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ${ifAbsent ? 'ON CONFLICT (public_key) DO NOTHING' : ''}`,
        [
          write.publicKey,
          write.institutionId,
          ...sealedValues(write.sealed),
          expiresAt,
          write.signaturePolicy,
        ],
      );
      return rowCount === 1;
    },

    async replace({ publicKey, institutionId, sealed, signaturePolicy }) {
      const { rowCount } = await client.query(
        `UPDATE credentials SET institution_id = $2, plaintext_secret = NULL,
           secret_key_id = $3, secret_nonce = $4, secret_ciphertext = $5, secret_tag = $6,
           signature_policy = $7
         WHERE public_key = $1`,
        [publicKey, institutionId, ...sealedValues(sealed), signaturePolicy],
      );
      return rowCount === 1;
    },

    async seal(publicKey, sealed) {
      await client.query(
        `UPDATE credentials SET plaintext_secret = NULL, secret_key_id = $2, secret_nonce = $3,
           secret_ciphertext = $4, secret_tag = $5
         WHERE public_key = $1`,
        [publicKey, ...sealedValues(sealed)],
      );
    },

    async expireOthers(institutionId, publicKey, at) {
      const { rows } = await client.query<{ public_key: string }>(
        `UPDATE credentials SET expires_at = $1
         WHERE institution_id = $2 AND public_key <> $3 AND revoked_at IS NULL
           AND (expires_at IS NULL OR expires_at > $1)
         RETURNING public_key`,
        [at, institutionId, publicKey],
      );
      return rows.map((row) => row.public_key);
    },

    async revoke(publicKey, reason) {
      const { rowCount } = await client.query(
        `UPDATE credentials SET revoked_at = now(), revoked_reason = $2
         WHERE public_key = $1 AND revoked_at IS NULL`,
        [publicKey, reason],
      );
      return rowCount === 1;
    },

    // One statement for all the events.
    async recordEvents(events) {
      if (events.length === 0) return [];
      const { rows } = await client.query<{ at: Date }>(
        `INSERT INTO credential_events (public_key, institution, what, reason, actor)
         SELECT public_key, institution, what, reason, actor
         FROM json_to_recordset($1::json)
           AS e(n integer, public_key text, institution text, what text, reason text, actor text)
         ORDER BY n
         RETURNING at`,
        [JSON.stringify(events.map((event, n) => ({ n, ...event, public_key: event.publicKey })))],
      );
      // now(): one time for the whole transaction.
      const at = rows[0]?.at ?? new Date();
      return events.map((event) => ({ ...event, at }));
    },
  };
}

/** The key pairs on PostgreSQL, through `pool` (see credential-flows.ts). */
export function postgresCredentials(pool: pg.Pool): CredentialDatabase {
  // `name`d: each connection parses the statement once and reuses it (a prepared statement).
  const rows = async <Row extends object>(text: string, values: unknown[], name?: string) =>
    (await pool.query<Row>({ name, text, values })).rows;
  return {
    transaction: (flow) =>
      inPostgresTransaction(pool, (client) => runLater(flow(postgresCredentialStatements(client)))),
    // The one statement a request may send for its key (when not in the cache).
    findRow: async (publicKey) =>
      (
        await rows<CredentialRow>(
          `${selectCredentialsSql} WHERE c.public_key = $1`,
          [publicKey],
          'find-credential',
        )
      )[0],
    listRows: (institution) =>
      rows<CredentialRow>(
        `${selectCredentialsSql} WHERE $1::text IS NULL OR i.name = $1
         ORDER BY c.created_at, c.public_key`,
        [institution],
      ),
    listEvents: (institution) =>
      rows<EventRow>(
        `SELECT at, public_key, institution, what, reason, actor FROM credential_events
         WHERE $1::text IS NULL OR institution = $1 ORDER BY id`,
        [institution],
      ),
    async recordUse(publicKey) {
      const sql = 'UPDATE credentials SET last_used_at = now() WHERE public_key = $1';
      await rows(sql, [publicKey], 'record-credential-use');
    },
    countInstitutions: async () => {
      const sql = 'SELECT count(*)::integer AS count FROM institutions';
      return (await rows<{ count: number }>(sql, [], 'count-institutions'))[0]?.count ?? 0;
    },
    longestPublicKey: async () => {
      const sql = 'SELECT coalesce(max(length(public_key)), 0)::integer AS length FROM credentials';
      return (await rows<{ length: number }>(sql, [], 'longest-public-key'))[0]?.length ?? 0;
    },
  };
}
