-- The key lifecycle (issue #26) in SQLite's terms; see ../postgres/0002_credential_lifecycle.sql.
--
-- Secret keys are encrypted at rest (AES-256-GCM, src/credentials/secret-box.ts): a row holds the
-- ciphertext, its nonce and tag, and the id of the key that sealed it, never the key itself.
-- `plaintext_secret` is the `secret_key` of 0001, kept only for the rows written before this
-- migration: the first start with a key seals them and empties it, and nothing writes it again.
-- SQLite cannot drop a NOT NULL, so the table is built anew and the rows copied; the server opens
-- the database with secure_delete on, so the pages of the old table are zeroed as they are freed,
-- and checkpoints the log away once the secrets are sealed (sqlite-storage.ts).
CREATE TABLE credentials_0002 (
  public_key text PRIMARY KEY CHECK (public_key <> '' AND instr(public_key, ':') = 0),
  institution_id text NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  plaintext_secret text,
  secret_key_id text,
  secret_nonce blob,
  secret_ciphertext blob,
  secret_tag blob,
  created_at text NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  -- Refused from then on; null: never expires. A rotation sets it on the institution's other keys.
  expires_at text,
  -- Refused from then on, whatever INSTITUTION_CREDENTIALS says.
  revoked_at text,
  revoked_reason text,
  -- Written at most once a minute per key and server process, never once per request.
  last_used_at text,
  -- Either in clear (before the first start with a key) or sealed, never both, never half.
  CHECK (
    (plaintext_secret IS NOT NULL AND secret_key_id IS NULL AND secret_nonce IS NULL
      AND secret_ciphertext IS NULL AND secret_tag IS NULL)
    OR (plaintext_secret IS NULL AND secret_key_id IS NOT NULL AND secret_nonce IS NOT NULL
      AND secret_ciphertext IS NOT NULL AND secret_tag IS NOT NULL)
  )
) STRICT;
INSERT INTO credentials_0002 (public_key, institution_id, plaintext_secret, created_at)
  SELECT public_key, institution_id, secret_key, created_at FROM credentials;
DROP TABLE credentials;
ALTER TABLE credentials_0002 RENAME TO credentials;
CREATE INDEX credentials_institution_id_idx ON credentials (institution_id);

-- Every change of a key pair, on record: who (the OS user running the command, or `start`) did
-- what, when, and why. The institution is kept by name, so the record outlives any row it names.
CREATE TABLE credential_events (
  id integer PRIMARY KEY,
  at text NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  public_key text NOT NULL,
  institution text NOT NULL,
  what text NOT NULL CHECK (what IN ('issued', 'rotated', 'expiry-set', 'revoked', 'provisioned',
    'secret-replaced', 'provision-skipped', 'encrypted', 'reencrypted')),
  reason text,
  actor text NOT NULL
) STRICT;
CREATE INDEX credential_events_institution_idx ON credential_events (institution, id);
