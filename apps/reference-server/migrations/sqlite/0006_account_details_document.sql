-- An account's details as one JSON document, in SQLite's terms; see
-- ../postgres/0006_account_details_document.sql. The document is JSON text.
--
-- SQLite drops a column only when no table constraint names it, and the checks of `network` and
-- `bank_name` do, so the table is built anew and its rows copied; nothing references `accounts`,
-- so dropping the old table drops nothing else.
CREATE TABLE accounts_with_details (
  id text PRIMARY KEY,
  user_id text NOT NULL CONSTRAINT accounts_user_id_key UNIQUE REFERENCES users (id) ON DELETE CASCADE,
  type text NOT NULL CHECK (type IN ('MOMO', 'BANK')),
  number text NOT NULL,
  details text NOT NULL CHECK (json_type(details) = 'object'),
  created_at text NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  CHECK (json_extract(details, '$.accountName') IS NOT NULL),
  CHECK (type <> 'MOMO' OR json_extract(details, '$.network') IS NOT NULL),
  CHECK (type <> 'BANK' OR json_extract(details, '$.bankName') IS NOT NULL)
) STRICT;
INSERT INTO accounts_with_details (id, user_id, type, number, details, created_at)
SELECT id, user_id, type, number,
  json_object('accountName', name, 'network', network, 'bankName', bank_name), created_at
FROM accounts;
DROP TABLE accounts;
ALTER TABLE accounts_with_details RENAME TO accounts;
