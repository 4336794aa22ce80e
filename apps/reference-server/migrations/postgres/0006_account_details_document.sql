-- An account's details as one JSON document, as a user's are since 0005 (spec: Assumptions,
-- "Details follow the spec"). What makes it the same payout account stays in columns: its type
-- and number (an update that keeps both keeps the account's id and creation time), beside its id,
-- its user and its creation time. Every other field of the account moves into `details`, under the
-- name the request gives it (accountName, network, bankName), so that a field the spec adds to the
-- account is stored with no migration: an account stored before it has no such key, and the server
-- answers the field's absent value (spec: Assumptions, "Absent fields").
--
-- The account rules the columns carried stay constraints, on the document: a name, a network for
-- MOMO and a bank name for BANK (spec: UserInput's variants). The checks of the dropped columns
-- go with them.
ALTER TABLE accounts ADD COLUMN details jsonb;
UPDATE accounts SET details = jsonb_build_object(
  'accountName', name,
  'network', network,
  'bankName', bank_name
);
ALTER TABLE accounts
  ALTER COLUMN details SET NOT NULL,
  DROP COLUMN name,
  DROP COLUMN network,
  DROP COLUMN bank_name;
ALTER TABLE accounts
  ADD CONSTRAINT accounts_details_check CHECK (jsonb_typeof(details) = 'object'),
  ADD CONSTRAINT accounts_name_check CHECK (details->>'accountName' IS NOT NULL),
  ADD CONSTRAINT accounts_momo_network_check CHECK (type <> 'MOMO' OR details->>'network' IS NOT NULL),
  ADD CONSTRAINT accounts_bank_name_check CHECK (type <> 'BANK' OR details->>'bankName' IS NOT NULL);
