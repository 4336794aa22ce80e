import { describe, expect, it } from 'vitest';
import { schemaValidator, spec } from './spec.js';

const validate = schemaValidator('UserInput');
const variants = ['NoAccountDetails', 'MomoAccountDetails', 'BankAccountDetails'].map((name) => ({
  name,
  validate: schemaValidator(name),
}));

const required = {
  email: 'ama.mensah@example.com',
  firstName: 'Ama',
  lastName: 'Mensah',
  mobileNumber: '0241234567',
  ghanaCardNumber: 'GHA-123456789-0',
  monthlyIncome: 2500.5,
};
const momo = {
  ...required,
  accountType: 'MOMO',
  accountNumber: '0241234567',
  accountName: 'Ama Mensah',
  network: 'MTN',
};
const bank = {
  ...required,
  accountType: 'BANK',
  accountNumber: '1021130012345',
  accountName: 'Ama Mensah',
  bankName: 'GCB Bank',
};

function without<T extends object>(body: T, key: keyof T) {
  const copy = { ...body };
  delete copy[key];
  return copy;
}

const valid: [string, unknown][] = [
  ['only the required fields', required],
  ['a MOMO account', momo],
  ['a BANK account', bank],
  ['every field with a MOMO account', spec.components.examples.MomoAccountUser?.value],
  [
    'explicit nulls for every optional field',
    {
      ...required,
      otherName: null,
      gender: null,
      dateOfBirth: null,
      image: null,
      ghanaCardImage: null,
      accountType: null,
      accountNumber: null,
      accountName: null,
      network: null,
      bankName: null,
      kyc: { occupation: null, address: null, validFrom: null, validTo: null, refNumber: null },
    },
  ],
  ['a MOMO account with bankName null', { ...momo, bankName: null }],
  ['a BANK account with network null', { ...bank, network: null }],
  ['mobile number as 233XXXXXXXXX', { ...required, mobileNumber: '233241234567' }],
  ['mobile number as +233XXXXXXXXX', { ...required, mobileNumber: '+233551234567' }],
  ['card number without dashes, lower case', { ...required, ghanaCardNumber: 'gha1234567890' }],
  ['income of zero', { ...required, monthlyIncome: 0 }],
  ['a 100-character name', { ...required, firstName: 'A'.repeat(100) }],
  ['an empty kyc object', { ...required, kyc: {} }],
  ['Twi letters in names', { ...required, firstName: 'Ɔsei', lastName: 'Ɛfua' }],
];

describe('UserInput accepts', () => {
  it.each(valid)('%s', (_, body) => {
    expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
  });

  it.each(valid)('%s, matching exactly one account variant', (_, body) => {
    expect(variants.filter((variant) => variant.validate(body)).length).toBe(1);
  });
});

type Case = [rule: string, body: unknown, path: string];
const invalid: Case[] = [
  // rule 4: always required
  ...(Object.keys(required) as (keyof typeof required)[]).map(
    (key): Case => [`${key} missing (rule 4)`, without(required, key), ''],
  ),
  // rules 1 to 3: the account
  ['MOMO without network (rule 2)', without(momo, 'network'), ''],
  ['MOMO with network null (rule 2)', { ...momo, network: null }, '/network'],
  ['MOMO without accountNumber (rule 1)', without(momo, 'accountNumber'), ''],
  ['MOMO without accountName (rule 1)', without(momo, 'accountName'), ''],
  ['BANK without bankName (rule 3)', without(bank, 'bankName'), ''],
  ['BANK without accountNumber (rule 1)', without(bank, 'accountNumber'), ''],
  ['BANK without accountName (rule 1)', without(bank, 'accountName'), ''],
  ['account details without accountType (rule 1)', without(bank, 'accountType'), ''],
  ['network without accountType', { ...required, network: 'MTN' }, '/network'],
  ['MOMO with a bankName', { ...momo, bankName: 'GCB Bank' }, '/bankName'],
  ['BANK with a network', { ...bank, network: 'MTN' }, '/network'],
  ['network outside the enum', { ...momo, network: 'VODAFONE' }, '/network'],
  ['accountType outside the enum', { ...momo, accountType: 'CASH' }, '/accountType'],
  [
    'MOMO wallet number that is not a mobile number',
    { ...momo, accountNumber: '1021130012345' },
    '/accountNumber',
  ],
  [
    'BANK account number over 34 characters',
    { ...bank, accountNumber: '1'.repeat(35) },
    '/accountNumber',
  ],
  // mobile numbers
  [
    'mobile number with a fixed-line prefix',
    { ...required, mobileNumber: '0302123456' },
    '/mobileNumber',
  ],
  ['mobile number one digit short', { ...required, mobileNumber: '024123456' }, '/mobileNumber'],
  [
    'mobile number one digit long',
    { ...required, mobileNumber: '+2332412345678' },
    '/mobileNumber',
  ],
  ['mobile number with spaces', { ...required, mobileNumber: '024 123 4567' }, '/mobileNumber'],
  [
    'mobile number of another country',
    { ...required, mobileNumber: '+2348012345678' },
    '/mobileNumber',
  ],
  // Ghana Card numbers
  [
    'card number with 8 digits',
    { ...required, ghanaCardNumber: 'GHA-12345678-0' },
    '/ghanaCardNumber',
  ],
  [
    'card number with 2 check digits',
    { ...required, ghanaCardNumber: 'GHA-123456789-01' },
    '/ghanaCardNumber',
  ],
  [
    'card number of another prefix',
    { ...required, ghanaCardNumber: 'GH-123456789-0' },
    '/ghanaCardNumber',
  ],
  // dates
  ['dateOfBirth not a date', { ...required, dateOfBirth: '17/05/1990' }, '/dateOfBirth'],
  ['dateOfBirth an impossible date', { ...required, dateOfBirth: '1990-13-01' }, '/dateOfBirth'],
  ['dateOfBirth a date-time', { ...required, dateOfBirth: '1990-05-17T00:00:00Z' }, '/dateOfBirth'],
  ['kyc.validTo not a date', { ...required, kyc: { validTo: 'next year' } }, '/kyc/validTo'],
  // unknown fields
  ['an unknown field', { ...required, nickname: 'Ama' }, ''],
  ['an unknown kyc field', { ...required, kyc: { employer: 'Acme' } }, '/kyc'],
  ['documents, which only responses carry', { ...required, documents: [] }, ''],
  // bounds
  ['firstName over 100 characters', { ...required, firstName: 'A'.repeat(101) }, '/firstName'],
  ['empty firstName', { ...required, firstName: '' }, '/firstName'],
  ['email over 254 characters', { ...required, email: `${'a'.repeat(243)}@example.com` }, '/email'],
  [
    'image URL over 2048 characters',
    { ...required, image: `https://cdn.example.com/${'a'.repeat(2030)}` },
    '/image',
  ],
  [
    'kyc.address over 500 characters',
    { ...required, kyc: { address: 'a'.repeat(501) } },
    '/kyc/address',
  ],
  ['negative monthlyIncome', { ...required, monthlyIncome: -1 }, '/monthlyIncome'],
  // types and formats
  ['monthlyIncome as a string', { ...required, monthlyIncome: '2500' }, '/monthlyIncome'],
  ['email without a domain', { ...required, email: 'ama.mensah' }, '/email'],
  ['image that is not a URL', { ...required, image: 'ama.jpg' }, '/image'],
  [
    'isGhanaCardVerified as a string',
    { ...required, isGhanaCardVerified: 'yes' },
    '/isGhanaCardVerified',
  ],
  ['kyc as null', { ...required, kyc: null }, '/kyc'],
  ['an array instead of an object', [required], ''],
];

describe('UserInput rejects', () => {
  it.each(invalid)('%s', (_, body, path) => {
    expect(validate(body)).toBe(false);
    // the error points at the offending field (or the object, for a missing or unknown field)
    expect(validate.errors?.map((error) => error.instancePath)).toContain(path);
  });

  // A oneOf failure reports the errors of every variant. The variant the body's accountType selects
  // (MOMO, BANK, or none) reports exactly the broken rule, which is what a server should say.
  it.each([
    ['MOMO without network', without(momo, 'network'), 'MomoAccountDetails', 'network'],
    ['BANK without bankName', without(bank, 'bankName'), 'BankAccountDetails', 'bankName'],
    ['MOMO without accountName', without(momo, 'accountName'), 'MomoAccountDetails', 'accountName'],
  ])('%s: the selected variant names only the missing field', (_, body, variant, field) => {
    const selected = variants.find((v) => v.name === variant);
    expect(selected?.validate(body)).toBe(false);
    expect(selected?.validate.errors).toEqual([
      expect.objectContaining({ keyword: 'required', params: { missingProperty: field } }),
    ]);
  });
});
