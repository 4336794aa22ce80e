-- The key lifecycle (issue #26): secrets encrypted at rest, expiry, revocation, last use, and a
-- record of every change.
--
-- Secret keys are encrypted at rest (AES-256-GCM, src/credentials/secret-box.ts) under a key that
-- lives outside the database (CREDENTIALS_ENCRYPTION_KEY): a row holds the ciphertext, its nonce
-- and tag, and the id of the key that sealed it, never the key itself. `plaintext_secret` is the
-- `secret_key` of 0001, kept only for the rows written before this migration: the first start
-- with a key seals them and empties it, and nothing writes it again.
ALTER TABLE credentials RENAME COLUMN secret_key TO plaintext_secret;
ALTER TABLE credentials
  ALTER COLUMN plaintext_secret DROP NOT NULL,
  ADD COLUMN secret_key_id text,
  ADD COLUMN secret_nonce bytea,
  ADD COLUMN secret_ciphertext bytea,
  ADD COLUMN secret_tag bytea,
  -- Refused from then on; null: never expires. A rotation sets it on the institution's other keys.
  ADD COLUMN expires_at timestamptz,
  -- Refused from then on, whatever INSTITUTION_CREDENTIALS says.
  ADD COLUMN revoked_at timestamptz,
  ADD COLUMN revoked_reason text,
  -- Written at most once a minute per key and server process, never once per request.
  ADD COLUMN last_used_at timestamptz,
  -- Either in clear (before the first start with a key) or sealed, never both, never half.
  ADD CONSTRAINT credentials_secret_check CHECK (
    (plaintext_secret IS NOT NULL AND num_nonnulls(secret_key_id, secret_nonce, secret_ciphertext, secret_tag) = 0)
    OR (plaintext_secret IS NULL AND num_nulls(secret_key_id, secret_nonce, secret_ciphertext, secret_tag) = 0)
  );

-- Every change of a key pair, on record: who (the OS user running the command, or `start`) did
-- what, when, and why. The institution is kept by name, so the record outlives any row it names.
CREATE TABLE credential_events (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at timestamptz NOT NULL DEFAULT now(),
  public_key text NOT NULL,
  institution text NOT NULL,
  what text NOT NULL CHECK (what IN ('issued', 'rotated', 'expiry-set', 'revoked', 'provisioned',
    'secret-replaced', 'provision-skipped', 'encrypted', 'reencrypted')),
  reason text,
  actor text NOT NULL
);
CREATE INDEX credential_events_institution_idx ON credential_events (institution, id);
