import { openapiDocument } from '@institution-api/types';
import { describe, expect, it } from 'vitest';
import { storedDetails } from '../src/rules/index.js';
import {
  answerOf,
  canonicalKeys,
  deriveUserDetailsModel,
  userDetailsModel,
} from '../src/user-details.js';

type Schema = Record<string, unknown>;
const examples = openapiDocument.components.examples as Record<string, { value: Schema }>;
const example = (name: string) => structuredClone(examples[name]?.value) as Schema;

/** The account key of one answer shape, with its own keys. */
const accountKey = (model = userDetailsModel, shape: 'created' | 'updated' = 'created') =>
  model.answers[shape].find((key) => key.key === 'account');

/** The bundled spec with an optional, nullable `branchCode` of BANK accounts. */
function withBranchCode() {
  const document = structuredClone(openapiDocument);
  const all = document.components.schemas as Record<string, Schema>;
  const add = (name: string, key: string, schema: Schema, required = false) => {
    const at = all[name] as Schema;
    at.properties = { ...(at.properties as Schema), [key]: schema };
    if (required) at.required = [...(at.required as string[]), key];
  };
  const text = { type: ['string', 'null'], maxLength: 20 };
  add('UserInput', 'branchCode', text);
  add('BankAccountDetails', 'branchCode', text);
  add('MomoAccountDetails', 'branchCode', { type: 'null' });
  add('NoAccountDetails', 'branchCode', { type: 'null' });
  add('AccountCreated', 'branch_code', text, true);
  add('AccountUpdated', 'branchCode', text, true);
  return document;
}

describe('the account in the details model of the bundled spec', () => {
  it('knows the variants: the field they fix, its values, what each requires and admits', () => {
    expect(userDetailsModel.account.discriminator).toBe('accountType');
    expect(
      userDetailsModel.account.variants.map(({ type, component, admitted }) => ({
        type,
        component,
        admitted,
      })),
    ).toEqual([
      { type: null, component: 'NoAccountDetails', admitted: [] },
      {
        type: 'MOMO',
        component: 'MomoAccountDetails',
        admitted: ['accountType', 'accountNumber', 'accountName', 'network'],
      },
      {
        type: 'BANK',
        component: 'BankAccountDetails',
        admitted: ['accountType', 'accountNumber', 'accountName', 'bankName'],
      },
    ]);
  });

  it('reads the snake_case keys of AccountCreated as the account fields, id and created_at as own', () => {
    expect(accountKey()?.keys?.map(({ key, name, field }) => [key, name, field ?? 'own'])).toEqual([
      ['id', 'id', 'own'],
      ['account_type', 'accountType', 'accountType'],
      ['account_number', 'accountNumber', 'accountNumber'],
      ['network', 'network', 'network'],
      ['bank_name', 'bankName', 'bankName'],
      ['account_name', 'accountName', 'accountName'],
      ['created_at', 'createdAt', 'own'],
    ]);
    const updated = accountKey(userDetailsModel, 'updated')?.keys ?? [];
    expect(updated.find((key) => key.key === 'bankName')).toMatchObject({ required: false });
  });

  it('builds both answers of the spec from its request example: its account objects as shown', () => {
    const details = storedDetails(example('MomoAccountUser') as never) as unknown as Schema;
    const shown = example('UserCreatedNew');
    const account = shown.account as Schema;
    const own = {
      id: shown.id,
      documents: shown.documents,
      createdAt: shown.createdAt,
      account: { id: account.id, createdAt: account.created_at },
    };
    expect(answerOf(userDetailsModel, 'created', details, own)).toEqual(shown);
    const updated = answerOf(userDetailsModel, 'updated', details, own);
    expect(updated.account).toEqual((example('UserUpdated') as Schema).account);
    expect(updated.account).not.toHaveProperty('bankName');
    expect(answerOf(userDetailsModel, 'created', details, { ...own, account: null }).account).toBe(
      null,
    );
  });

  it("reads one account from either answer: the update answer's names, both spellings", () => {
    const account = canonicalKeys(userDetailsModel).find((key) => key.name === 'account');
    expect(account?.keys?.map(({ name, spellings }) => [name, spellings])).toEqual([
      ['id', ['id']],
      ['accountType', ['accountType', 'account_type']],
      ['accountNumber', ['accountNumber', 'account_number']],
      ['network', ['network']],
      ['bankName', ['bankName', 'bank_name']],
      ['accountName', ['accountName', 'account_name']],
      ['createdAt', ['createdAt', 'created_at']],
    ]);
  });
});

describe('a new optional field of the account', () => {
  const model = deriveUserDetailsModel(withBranchCode());

  it('is an account field, admitted by BANK only, a key of both account objects', () => {
    expect(model.input.find((field) => field.name === 'branchCode')).toMatchObject({
      account: true,
      absent: { value: null },
    });
    expect(model.account.variants.find((v) => v.type === 'BANK')?.admitted).toContain('branchCode');
    expect(model.account.variants.find((v) => v.type === 'MOMO')?.admitted).not.toContain(
      'branchCode',
    );
    expect(accountKey(model)?.keys?.at(-1)).toMatchObject({
      key: 'branch_code',
      field: 'branchCode',
    });
    expect(accountKey(model, 'updated')?.keys?.at(-1)).toMatchObject({
      key: 'branchCode',
      field: 'branchCode',
    });
  });

  it('is an account field also when only the account objects carry it, admitted by every type', () => {
    const document = withBranchCode();
    for (const variant of ['BankAccountDetails', 'MomoAccountDetails', 'NoAccountDetails']) {
      const schema = (document.components.schemas as Record<string, Schema>)[variant] as Schema;
      delete (schema.properties as Schema).branchCode;
    }
    const inferred = deriveUserDetailsModel(document);
    expect(inferred.input.find((field) => field.name === 'branchCode')?.account).toBe(true);
    for (const variant of inferred.account.variants.filter((v) => v.type !== null)) {
      expect(variant.admitted).toContain('branchCode');
    }
  });

  it('is answered as sent, and null for an account stored before it existed', () => {
    const own = { id: 'u', documents: [], createdAt: 't', account: { id: 'a', createdAt: 't' } };
    const bank = storedDetails(
      { ...example('BankAccountUser'), branchCode: 'ACC-01' } as never,
      model,
    ) as unknown as Schema;
    expect(answerOf(model, 'created', bank, own).account).toMatchObject({ branch_code: 'ACC-01' });
    expect(answerOf(model, 'updated', bank, own).account).toMatchObject({ branchCode: 'ACC-01' });
    const { branchCode: _, ...before } = bank;
    expect(answerOf(model, 'created', before, own).account).toHaveProperty('branch_code', null);
    expect(answerOf(model, 'updated', before, own).account).toHaveProperty('branchCode', null);
  });

  it('names the field with x-input-field where the key does not follow', () => {
    const document = withBranchCode();
    const created = (document.components.schemas as Record<string, Schema>)
      .AccountCreated as Schema;
    const properties = created.properties as Record<string, Schema>;
    properties.branch = { ...properties.branch_code, 'x-input-field': 'branchCode' };
    delete properties.branch_code;
    created.required = (created.required as string[]).map((key) =>
      key === 'branch_code' ? 'branch' : key,
    );
    const renamed = deriveUserDetailsModel(document);
    expect(accountKey(renamed)?.keys?.at(-1)).toMatchObject({ key: 'branch', field: 'branchCode' });
    properties.branch = { ...properties.branch, 'x-input-field': 'email' };
    expect(() => deriveUserDetailsModel(document)).toThrow(
      `AccountCreated.branch has x-input-field "email", which is no field of UserInput's account.`,
    );
  });
});
