-- The schema of ../postgres/0001_initial.sql in SQLite's terms (the embedded database, node:sqlite).
-- STRICT tables, so that a column holds only its declared type. SQLite has no uuid, timestamp,
-- boolean or array types: ids are uuids the server generates (text), timestamps ISO 8601 UTC text
-- with milliseconds, booleans 0 or 1, the documents array JSON text. Uniqueness lives here, in
-- constraints, as on PostgreSQL, so that no sequence of requests can create duplicates.

CREATE TABLE institutions (
  id text PRIMARY KEY,
  name text NOT NULL CONSTRAINT institutions_name_key UNIQUE,
  created_at text NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;

-- The secret is stored as given, not hashed: verifying an HMAC signature needs the secret itself.
-- Protect the database file (and its copies) accordingly; never log this column.
CREATE TABLE credentials (
  public_key text PRIMARY KEY CHECK (public_key <> '' AND instr(public_key, ':') = 0),
  institution_id text NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  secret_key text NOT NULL,
  created_at text NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;
CREATE INDEX credentials_institution_id_idx ON credentials (institution_id);

CREATE TABLE users (
  id text PRIMARY KEY,
  email text NOT NULL,
  first_name text NOT NULL,
  last_name text NOT NULL,
  other_name text,
  gender text,
  -- date() gives back a valid 'YYYY-MM-DD' unchanged and anything else changed or null.
  date_of_birth text CHECK (date(date_of_birth) IS date_of_birth),
  mobile_number text NOT NULL,
  -- The normalized card number identifies a person (DECISIONS.md "existing user recognition").
  ghana_card_number text NOT NULL CONSTRAINT users_ghana_card_number_key UNIQUE,
  monthly_income real NOT NULL,
  is_ghana_card_verified integer NOT NULL DEFAULT 0 CHECK (is_ghana_card_verified IN (0, 1)),
  image text,
  ghana_card_image text,
  kyc_occupation text,
  kyc_address text,
  kyc_valid_from text CHECK (date(kyc_valid_from) IS kyc_valid_from),
  kyc_valid_to text CHECK (date(kyc_valid_to) IS kyc_valid_to),
  kyc_ref_number text,
  documents text NOT NULL DEFAULT '[]' CHECK (json_type(documents) = 'array'),
  created_at text NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  updated_at text NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;
-- An email belongs to one user (DECISIONS.md "unique email"), whatever its letter case. Emails are
-- ASCII (the spec's format: email), where SQLite's lower() and PostgreSQL's agree.
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

-- At most one payout account per user (document section 1), with the conditional rules of 4.1.
CREATE TABLE accounts (
  id text PRIMARY KEY,
  user_id text NOT NULL CONSTRAINT accounts_user_id_key UNIQUE REFERENCES users (id) ON DELETE CASCADE,
  type text NOT NULL CHECK (type IN ('MOMO', 'BANK')),
  number text NOT NULL,
  network text CHECK (network IN ('MTN', 'AIRTEL_TIGO', 'TELECEL')),
  bank_name text,
  name text NOT NULL,
  created_at text NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  CHECK (type <> 'MOMO' OR network IS NOT NULL),
  CHECK (type <> 'BANK' OR bank_name IS NOT NULL)
) STRICT;

-- A user belongs to every institution that created or added it; updates are scoped by it.
CREATE TABLE memberships (
  institution_id text NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at text NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  PRIMARY KEY (institution_id, user_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX memberships_user_id_idx ON memberships (user_id);
