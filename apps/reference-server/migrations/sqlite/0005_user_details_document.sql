-- A user's details as one JSON document, in SQLite's terms; see
-- ../postgres/0005_user_details_document.sql. The document is JSON text (json_object writes a
-- REAL as the shortest text that reads back as the same double); the card's verification, 0 or 1
-- before, becomes a JSON boolean.
--
-- SQLite adds a NOT NULL column only with a default: '{}' is never used, since the server writes
-- the document with every user. The old columns are dropped in place (ALTER TABLE DROP COLUMN),
-- not by building the table anew, which would drop the accounts and memberships that reference it.
ALTER TABLE users ADD COLUMN details text NOT NULL DEFAULT '{}'
  CHECK (json_type(details) = 'object');
UPDATE users SET details = json_object(
  'firstName', first_name,
  'lastName', last_name,
  'otherName', other_name,
  'gender', gender,
  'dateOfBirth', date_of_birth,
  'monthlyIncome', monthly_income,
  'isGhanaCardVerified', json(CASE is_ghana_card_verified WHEN 1 THEN 'true' ELSE 'false' END),
  'image', image,
  'ghanaCardImage', ghana_card_image,
  'kyc', json_object(
    'occupation', kyc_occupation,
    'address', kyc_address,
    'validFrom', kyc_valid_from,
    'validTo', kyc_valid_to,
    'refNumber', kyc_ref_number
  )
);
ALTER TABLE users DROP COLUMN first_name;
ALTER TABLE users DROP COLUMN last_name;
ALTER TABLE users DROP COLUMN other_name;
ALTER TABLE users DROP COLUMN gender;
ALTER TABLE users DROP COLUMN date_of_birth;
ALTER TABLE users DROP COLUMN monthly_income;
ALTER TABLE users DROP COLUMN is_ghana_card_verified;
ALTER TABLE users DROP COLUMN image;
ALTER TABLE users DROP COLUMN ghana_card_image;
ALTER TABLE users DROP COLUMN kyc_occupation;
ALTER TABLE users DROP COLUMN kyc_address;
ALTER TABLE users DROP COLUMN kyc_valid_from;
ALTER TABLE users DROP COLUMN kyc_valid_to;
ALTER TABLE users DROP COLUMN kyc_ref_number;
