import { deriveUserDetailsModel } from '@institution-api/runtime/user-details';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { schemaArbitrary } from '../../src/generate/schema-arbitrary.js';
import {
  answerDifferences,
  asPerson,
  carriedFields,
  detailDifferences,
  freshIdentity,
  identityOf,
  otherMobile,
  revealedValues,
  storedDetails,
  textUnit,
} from '../../src/semantics/user-semantics.js';
import { contract, example } from '../support/exchanges.js';

const userInput = { $ref: '#/components/schemas/UserInput' };
const validate = contract.validator(userInput);

describe('freshIdentity', () => {
  it('keeps a body valid, its email length when it can, and makes a new person every time', () => {
    const bodies = fc.sample(
      schemaArbitrary(userInput, { document: contract.document, textUnit }),
      { seed: 2, numRuns: 100 },
    );
    const cards = new Set<string>();
    const emails = new Set<string>();
    for (const body of bodies) {
      const fresh = freshIdentity(body) as Record<string, string>;
      expect(validate(fresh)).toBe(true);
      const before = (body as Record<string, string>).email ?? '';
      if (before.indexOf('@') > 10) expect(fresh.email?.length).toBe(before.length);
      cards.add(identityOf(fresh).card);
      emails.add(fresh.email?.toLowerCase() ?? '');
    }
    expect(cards.size).toBe(bodies.length);
    expect(emails.size).toBe(bodies.length);
  });
});

describe('storedDetails and answeredDetails', () => {
  it("read the spec's own create answer as what its request stored", () => {
    const stored = storedDetails({ ...example('MomoAccountUser') });
    expect(answerDifferences(stored, example('UserCreatedNew'), 'created')).toEqual([]);
    // The create shape does not carry the income, so it is not compared.
    expect(carriedFields('created').has('monthlyIncome')).toBe(false);
    expect(carriedFields('updated').has('monthlyIncome')).toBe(true);
  });

  it('name every field an answer gets wrong, normalized numbers and cleared fields included', () => {
    const request = {
      ...example('UserWithoutAccount'),
      mobileNumber: '0241234567',
      otherName: 'Adjoa',
    };
    const stored = storedDetails(request);
    expect(stored.mobileNumber).toBe('+233241234567');
    expect(stored.gender).toBeNull();
    const answer = { ...stored, otherName: null, mobileNumber: '0241234567' };
    expect(detailDifferences(stored, answer).sort()).toEqual([
      'mobileNumber: sent "+233241234567", answered "0241234567"',
      'otherName: sent "Adjoa", answered null',
    ]);
  });

  it('notice a key the answer leaves out, even where null is expected', () => {
    // UserAddedToInstitution is the BANK request example as stored.
    const stored = storedDetails({ ...example('BankAccountUser') });
    const answer = example('UserAddedToInstitution');
    expect(answerDifferences(stored, answer, 'created')).toEqual([]);
    delete answer.gender;
    expect(answerDifferences(stored, answer, 'created')).toEqual([
      'gender: sent null, answered nothing (no such key)',
    ]);
  });

  it("model a field the spec adds, from that spec's schemas", () => {
    const document = structuredClone(contract.document);
    const schemas = document.components.schemas as Record<string, Record<string, unknown>>;
    for (const name of ['UserInput', 'UserCreated', 'UserUpdated']) {
      const schema = schemas[name] as { properties: Record<string, unknown>; required?: string[] };
      schema.properties.fieldAddedByTest = { type: ['string', 'null'], maxLength: 100 };
      if (name !== 'UserInput') schema.required = [...(schema.required ?? []), 'fieldAddedByTest'];
    }
    const model = deriveUserDetailsModel(document);
    const stored = storedDetails({ ...example('MomoAccountUser') }, model);
    expect(stored.fieldAddedByTest).toBeNull();
    const answer = example('UserCreatedNew') as Record<string, unknown>;
    expect(answerDifferences(stored, answer, 'created', model)).toEqual([
      'fieldAddedByTest: sent null, answered nothing (no such key)',
    ]);
    expect(
      answerDifferences(stored, { ...answer, fieldAddedByTest: null }, 'created', model),
    ).toEqual([]);
    const named = storedDetails({ ...example('MomoAccountUser'), fieldAddedByTest: 'Maa' }, model);
    expect(
      answerDifferences(named, { ...answer, fieldAddedByTest: null }, 'created', model),
    ).toEqual(['fieldAddedByTest: sent "Maa", answered null']);
  });
});

describe('recognition', () => {
  it('respells a person (card and mobile) without changing who it is', () => {
    const person = { card: 'GHA-123456789-0', mobile: '+233241234567' };
    for (const spelling of [0, 1, 2]) {
      const body = asPerson(example('UserWithoutAccount'), person, spelling);
      expect(validate(body)).toBe(true);
      expect(identityOf(body)).toMatchObject(person);
    }
    expect(otherMobile('0241234567')).not.toBe('0241234567');
    expect(
      validate({ ...example('UserWithoutAccount'), mobileNumber: otherMobile('0241234567') }),
    ).toBe(true);
  });

  it('finds what a refusal reveals of a stored person, and not what the request itself carried', () => {
    const stored = {
      id: '3f0c9a52-6d1e-4b7a-9c2e-8a5d4f1b7e21',
      email: 'ama@example.com',
      mobileNumber: '+233241234567',
      firstName: 'Ama',
      lastName: 'Mensah-Boateng',
    };
    const answer = '{"detail":"exists: ama@example.com, 0241234567, Mensah-Boateng"}';
    expect(revealedValues(answer, '{}', stored)).toEqual([
      'ama@example.com',
      '241234567',
      'Mensah-Boateng',
    ]);
    expect(revealedValues(answer, '{"email":"ama@example.com"}', stored)).toEqual([
      '241234567',
      'Mensah-Boateng',
    ]);
  });
});
