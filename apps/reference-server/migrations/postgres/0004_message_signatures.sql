-- RFC 9421 HTTP Message Signatures beside `Authorization: <publicKey>:<signature>` (spec:
-- "Assumptions", message signatures).
--
-- Each key pair has a policy: `any` (the Authorization header alone is enough; every pair stored
-- before this migration, so that every existing client keeps working) or `message-signature` (a
-- request without a valid message signature is refused).
ALTER TABLE credentials
  ADD COLUMN signature_policy text NOT NULL DEFAULT 'any'
    CONSTRAINT credentials_signature_policy_check
    CHECK (signature_policy IN ('any', 'message-signature'));

-- `policy-changed`: INSTITUTION_CREDENTIALS gave a stored pair another policy.
ALTER TABLE credential_events DROP CONSTRAINT credential_events_what_check;
ALTER TABLE credential_events ADD CONSTRAINT credential_events_what_check
  CHECK (what IN ('issued', 'rotated', 'expiry-set', 'revoked', 'provisioned',
    'secret-replaced', 'provision-skipped', 'encrypted', 'reencrypted', 'policy-changed'));

-- The nonces of the message signatures accepted, each once per key pair while a request carrying
-- it could still be accepted (until its `created` is older than the server's window): every server
-- process on this database inserts into it, so a request replayed through another process is
-- refused too (src/storage/postgres-storage.ts). A row whose `expires_at` has passed counts as
-- absent (its nonce may be used again) and is deleted a few at a time as new ones come in.
--
-- A logged table, unlike rate_limits: a crash of PostgreSQL must not forget the nonces of the
-- requests whose effects it kept, or those requests could be replayed after the restart.
CREATE TABLE message_signature_nonces (
  public_key text NOT NULL,
  nonce text NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (public_key, nonce)
);
CREATE INDEX message_signature_nonces_expires_at_idx ON message_signature_nonces (expires_at);
