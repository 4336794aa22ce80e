import type { DatabaseSync } from 'node:sqlite';
import { runNow } from '../flow.js';
import { newId } from '../new-id.js';
import { getRow, type RunInGroupCommit, sqliteNow } from '../sqlite-database.js';
import type { CredentialDatabase, CredentialStatements } from './credential-flows.js';
import {
  type CredentialRow,
  credentialRowColumns,
  type EventRow,
  sealedValues,
} from './credential-rows.js';

/** The key pairs' statements, prepared once. `?` parameters, in the order written. */
function prepareStatements(db: DatabaseSync) {
  const selectCredentials = `SELECT ${credentialRowColumns}
    FROM credentials c JOIN institutions i ON i.id = c.institution_id`;
  return {
    findCredential: db.prepare(`${selectCredentials} WHERE c.public_key = ?`),
    // institution name twice: every pair, or one institution's
    listCredentials: db.prepare(`${selectCredentials} WHERE ? IS NULL OR i.name = ?
      ORDER BY c.created_at, c.public_key`),
    // DO UPDATE rather than DO NOTHING, so that RETURNING gives the existing row's id too.
    upsertInstitution: db.prepare(`
      INSERT INTO institutions (id, name) VALUES (?, ?)
      ON CONFLICT (name) DO UPDATE SET name = excluded.name
      RETURNING id`),
    findInstitution: db.prepare('SELECT id FROM institutions WHERE name = ?'),
    // public key, institution, the four sealed columns, expiry, signature policy
    insertCredential: db.prepare(`
      INSERT INTO credentials (public_key, institution_id, secret_key_id, secret_nonce,
        secret_ciphertext, secret_tag, expires_at, signature_policy)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
    // institution, the four sealed columns, signature policy, public key
    replaceCredential: db.prepare(`
      UPDATE credentials SET institution_id = ?, plaintext_secret = NULL, secret_key_id = ?,
        secret_nonce = ?, secret_ciphertext = ?, secret_tag = ?, signature_policy = ?
      WHERE public_key = ?`),
    // the four sealed columns, public key
    sealSecret: db.prepare(`
      UPDATE credentials SET plaintext_secret = NULL, secret_key_id = ?, secret_nonce = ?,
        secret_ciphertext = ?, secret_tag = ?
      WHERE public_key = ?`),
    // new expiry, institution, the new pair's public key, new expiry again
    expireOthers: db.prepare(`
      UPDATE credentials SET expires_at = ?
      WHERE institution_id = ? AND public_key <> ? AND revoked_at IS NULL
        AND (expires_at IS NULL OR expires_at > ?)
      RETURNING public_key`),
    // reason, public key
    revokeCredential: db.prepare(`
      UPDATE credentials SET revoked_at = ${sqliteNow}, revoked_reason = ?
      WHERE public_key = ? AND revoked_at IS NULL`),
    recordCredentialUse: db.prepare(
      `UPDATE credentials SET last_used_at = ${sqliteNow} WHERE public_key = ?`,
    ),
    insertEvent: db.prepare(`
      INSERT INTO credential_events (public_key, institution, what, reason, actor)
      VALUES (?, ?, ?, ?, ?)
      RETURNING at`),
    // institution name twice
    listEvents: db.prepare(`
      SELECT at, public_key, institution, what, reason, actor FROM credential_events
      WHERE ? IS NULL OR institution = ?
      ORDER BY id`),
    countInstitutions: db.prepare('SELECT count(*) AS count FROM institutions'),
    longestPublicKey: db.prepare(
      'SELECT coalesce(max(length(public_key)), 0) AS length FROM credentials',
    ),
  };
}

/**
 * The key pairs on the embedded database `db` (see credential-flows.ts): each flow is one
 * synchronous work of the group commit `inTransaction`, whose write lock (BEGIN IMMEDIATE) keeps
 * every other writer out until it ends.
 */
export function sqliteCredentials(
  db: DatabaseSync,
  inTransaction: RunInGroupCommit,
): CredentialDatabase {
  const sql = prepareStatements(db);
  const rowsOf = (publicKeys: string[]) =>
    publicKeys.flatMap((key) => getRow<CredentialRow>(sql.findCredential, key) ?? []);
  const listRows = (institution: string | null) =>
    sql.listCredentials.all(institution, institution) as unknown as CredentialRow[];
  const statements: CredentialStatements = {
    institutionId: (name, create) =>
      (create
        ? getRow<{ id: string }>(sql.upsertInstitution, newId(), name)
        : getRow<{ id: string }>(sql.findInstitution, name)
      )?.id,
    lockRows: (publicKeys) => (publicKeys ? rowsOf(publicKeys) : listRows(null)),
    rows: rowsOf,
    // Nothing else writes in the transaction, so a pair read as absent is still absent: no
    // conflict for `ifAbsent` to skip.
    insert: ({ publicKey, institutionId, sealed, signaturePolicy }, expiresAt) =>
      sql.insertCredential.run(
        publicKey,
        institutionId,
        ...sealedValues(sealed),
        expiresAt?.toISOString() ?? null,
        signaturePolicy,
      ).changes > 0,
    replace: ({ publicKey, institutionId, sealed, signaturePolicy }) =>
      sql.replaceCredential.run(institutionId, ...sealedValues(sealed), signaturePolicy, publicKey)
        .changes > 0,
    seal(publicKey, sealed) {
      sql.sealSecret.run(...sealedValues(sealed), publicKey);
    },
    expireOthers(institutionId, publicKey, at) {
      const iso = at.toISOString();
      const changed = sql.expireOthers.all(iso, institutionId, publicKey, iso) as {
        public_key: string;
      }[];
      return changed.map((row) => row.public_key);
    },
    revoke: (publicKey, reason) => sql.revokeCredential.run(reason, publicKey).changes > 0,
    recordEvents: (events) =>
      events.map((event) => {
        const { publicKey, institution, what, reason, actor } = event;
        const row = getRow<{ at: string }>(
          sql.insertEvent,
          publicKey,
          institution,
          what,
          reason,
          actor,
        );
        return { ...event, at: new Date(row?.at ?? Date.now()) };
      }),
  };
  return {
    transaction: (flow) => inTransaction(() => runNow(flow(statements))),
    findRow: async (publicKey) => getRow<CredentialRow>(sql.findCredential, publicKey),
    listRows: async (institution) => listRows(institution),
    listEvents: async (institution) =>
      sql.listEvents.all(institution, institution) as unknown as EventRow[],
    recordUse: (publicKey) =>
      inTransaction(() => {
        sql.recordCredentialUse.run(publicKey);
      }),
    countInstitutions: async () => getRow<{ count: number }>(sql.countInstitutions)?.count ?? 0,
    longestPublicKey: async () =>
      Number(getRow<{ length: number }>(sql.longestPublicKey)?.length ?? 0),
    // The secrets in clear were zeroed where they stood (secure_delete), but the log still holds
    // the pages that had them: copy it into the database and empty the file. (A no-op in memory,
    // which has no log.)
    forgetPlaintext: () => db.exec('PRAGMA wal_checkpoint(TRUNCATE)'),
  };
}
