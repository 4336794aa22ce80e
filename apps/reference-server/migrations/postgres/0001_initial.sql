-- Institutions, their key pairs, users, their one payout account, and which institutions a user
-- belongs to. Runs unchanged on PGlite and PostgreSQL 15+ (gen_random_uuid is core since 13).
-- Uniqueness lives here, in constraints, so that concurrent requests cannot create duplicates.

CREATE TABLE institutions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text NOT NULL CONSTRAINT institutions_name_key UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- The secret is stored as given, not hashed: verifying an HMAC signature needs the secret itself.
-- Protect the database (and its backups) accordingly; never log this column.
CREATE TABLE credentials (
  public_key text PRIMARY KEY CHECK (public_key <> '' AND strpos(public_key, ':') = 0),
  institution_id uuid NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  secret_key text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX credentials_institution_id_idx ON credentials (institution_id);

CREATE TABLE users (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email text NOT NULL,
  first_name text NOT NULL,
  last_name text NOT NULL,
  other_name text,
  gender text,
  date_of_birth date,
  mobile_number text NOT NULL,
  -- The normalized card number identifies a person (DECISIONS.md "existing user recognition").
  ghana_card_number text NOT NULL CONSTRAINT users_ghana_card_number_key UNIQUE,
  monthly_income double precision NOT NULL,
  is_ghana_card_verified boolean NOT NULL DEFAULT false,
  image text,
  ghana_card_image text,
  kyc_occupation text,
  kyc_address text,
  kyc_valid_from date,
  kyc_valid_to date,
  kyc_ref_number text,
  documents text[] NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- An email belongs to one user (DECISIONS.md "unique email"), whatever its letter case.
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

-- At most one payout account per user (document section 1), with the conditional rules of 4.1.
CREATE TABLE accounts (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL CONSTRAINT accounts_user_id_key UNIQUE REFERENCES users (id) ON DELETE CASCADE,
  type text NOT NULL CHECK (type IN ('MOMO', 'BANK')),
  number text NOT NULL,
  network text CHECK (network IN ('MTN', 'AIRTEL_TIGO', 'TELECEL')),
  bank_name text,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK (type <> 'MOMO' OR network IS NOT NULL),
  CHECK (type <> 'BANK' OR bank_name IS NOT NULL)
);

-- A user belongs to every institution that created or added it; updates are scoped by it.
CREATE TABLE memberships (
  institution_id uuid NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (institution_id, user_id)
);
CREATE INDEX memberships_user_id_idx ON memberships (user_id);
