-- A user's details as one JSON document (spec: Assumptions, "Details follow the spec"). The keys
-- that recognize a person stay columns of their own, with their constraints: email (unique
-- whatever its letter case), mobile_number and ghana_card_number (unique); so do the id, the
-- documents, the timestamps and the account (its own table). Every other field of the spec's
-- UserInput moves into `details`, as the request named it, so that a field the spec adds is
-- stored with no migration: a user stored before it has no such key, and the server answers the
-- field's absent value (spec: Assumptions, "Absent fields").
--
-- The rows stored so far keep their values: each column becomes the key of its field, dates as
-- 'YYYY-MM-DD' text, the income as a JSON number (PostgreSQL writes a double as the shortest text
-- that reads back as the same double), the card's verification as a JSON boolean.
ALTER TABLE users ADD COLUMN details jsonb;
UPDATE users SET details = jsonb_build_object(
  'firstName', first_name,
  'lastName', last_name,
  'otherName', other_name,
  'gender', gender,
  'dateOfBirth', to_char(date_of_birth, 'YYYY-MM-DD'),
  'monthlyIncome', monthly_income,
  'isGhanaCardVerified', is_ghana_card_verified,
  'image', image,
  'ghanaCardImage', ghana_card_image,
  'kyc', jsonb_build_object(
    'occupation', kyc_occupation,
    'address', kyc_address,
    'validFrom', to_char(kyc_valid_from, 'YYYY-MM-DD'),
    'validTo', to_char(kyc_valid_to, 'YYYY-MM-DD'),
    'refNumber', kyc_ref_number
  )
);
ALTER TABLE users
  ALTER COLUMN details SET NOT NULL,
  ADD CONSTRAINT users_details_check CHECK (jsonb_typeof(details) = 'object'),
  DROP COLUMN first_name,
  DROP COLUMN last_name,
  DROP COLUMN other_name,
  DROP COLUMN gender,
  DROP COLUMN date_of_birth,
  DROP COLUMN monthly_income,
  DROP COLUMN is_ghana_card_verified,
  DROP COLUMN image,
  DROP COLUMN ghana_card_image,
  DROP COLUMN kyc_occupation,
  DROP COLUMN kyc_address,
  DROP COLUMN kyc_valid_from,
  DROP COLUMN kyc_valid_to,
  DROP COLUMN kyc_ref_number;
