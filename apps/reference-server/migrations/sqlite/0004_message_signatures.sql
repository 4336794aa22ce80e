-- RFC 9421 HTTP Message Signatures in SQLite's terms; see ../postgres/0004_message_signatures.sql.
-- (No 0003 here: the rate limit's counts of PostgreSQL's 0003 live in the one server process.)
--
-- Each key pair has a policy: `any` (the Authorization header alone is enough; every pair stored
-- before this migration) or `message-signature` (a valid message signature is required).
ALTER TABLE credentials ADD COLUMN signature_policy text NOT NULL DEFAULT 'any'
  CHECK (signature_policy IN ('any', 'message-signature'));

-- `policy-changed`: INSTITUTION_CREDENTIALS gave a stored pair another policy. SQLite cannot
-- change a CHECK constraint, so the events table is built anew and its rows copied, ids kept.
CREATE TABLE credential_events_0004 (
  id integer PRIMARY KEY,
  at text NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  public_key text NOT NULL,
  institution text NOT NULL,
  what text NOT NULL CHECK (what IN ('issued', 'rotated', 'expiry-set', 'revoked', 'provisioned',
    'secret-replaced', 'provision-skipped', 'encrypted', 'reencrypted', 'policy-changed')),
  reason text,
  actor text NOT NULL
) STRICT;
INSERT INTO credential_events_0004 (id, at, public_key, institution, what, reason, actor)
  SELECT id, at, public_key, institution, what, reason, actor FROM credential_events;
DROP TABLE credential_events;
ALTER TABLE credential_events_0004 RENAME TO credential_events;
CREATE INDEX credential_events_institution_idx ON credential_events (institution, id);

-- The nonces of the message signatures accepted, each once per key pair while a request carrying
-- it could still be accepted (src/storage/sqlite-storage.ts); `expires_at` is ISO 8601 UTC text
-- with milliseconds, as every timestamp here, so that text order is time order. A row whose
-- `expires_at` has passed counts as absent and is deleted a few at a time as new ones come in.
CREATE TABLE message_signature_nonces (
  public_key text NOT NULL,
  nonce text NOT NULL,
  expires_at text NOT NULL,
  PRIMARY KEY (public_key, nonce)
) STRICT, WITHOUT ROWID;
CREATE INDEX message_signature_nonces_expires_at_idx ON message_signature_nonces (expires_at);
