import { openapiDocument } from '@institution-api/types';
import { describe, expect, it } from 'vitest';
import {
  answerOf,
  canonicalKeys,
  dateOf,
  deriveUserDetailsModel,
  presentValue,
  userDetailsModel,
  withDefaults,
} from '../src/user-details.js';

type Schema = Record<string, unknown>;
const schemas = openapiDocument.components.schemas as Record<string, Schema>;
const propertiesOf = (name: string) => Object.keys(schemas[name]?.properties as Schema);

/** The bundled spec with one more optional, nullable field in UserInput and both answers. */
function withNewField(answers: 'required' | 'optional' = 'required') {
  const document = structuredClone(openapiDocument);
  const field = { type: ['string', 'null'], maxLength: 100, description: 'A new field.' };
  const all = document.components.schemas as Record<string, Schema>;
  for (const name of ['UserInput', 'UserCreated', 'UserUpdated']) {
    const schema = all[name] as Schema;
    schema.properties = { ...(schema.properties as Schema), fieldAddedByTest: field };
    if (name !== 'UserInput' && answers === 'required') {
      schema.required = [...(schema.required as string[]), 'fieldAddedByTest'];
    }
  }
  return document;
}

/** The required details and a few optional ones, as a user's stored details hold them. */
const requestDetails = {
  email: 'a@example.com',
  firstName: 'Ama',
  lastName: 'Mensah',
  mobileNumber: '+233241234567',
  ghanaCardNumber: 'GHA-123456789-0',
  monthlyIncome: 10,
  dateOfBirth: '1990-05-17',
  image: 'https://example.com/a.png',
};

describe('the details model of the bundled spec', () => {
  it('has every property of UserInput as a field, in order, and no other', () => {
    expect(userDetailsModel.input.map((field) => field.name)).toEqual(propertiesOf('UserInput'));
  });

  it("marks the account's fields: the properties of UserInput's variants", () => {
    const variants = ['NoAccountDetails', 'MomoAccountDetails', 'BankAccountDetails'];
    const accountFields = new Set(variants.flatMap(propertiesOf));
    expect(accountFields.size).toBeGreaterThan(0);
    expect(
      userDetailsModel.input.filter((field) => field.account).map((field) => field.name),
    ).toEqual(propertiesOf('UserInput').filter((name) => accountFields.has(name)));
  });

  it('lists the keys of each answer in its order, each request field under its name', () => {
    for (const [shape, schema] of [
      ['created', 'UserCreated'],
      ['updated', 'UserUpdated'],
    ] as const) {
      const keys = userDetailsModel.answers[shape];
      expect(keys.map((key) => key.key)).toEqual(propertiesOf(schema));
      for (const key of keys) {
        const isField = propertiesOf('UserInput').includes(key.key);
        if (isField) expect(key.field).toBe(key.key);
      }
    }
  });

  it("reads the create answer's userImage as the request's image (x-input-field)", () => {
    const userImage = userDetailsModel.answers.created.find((key) => key.key === 'userImage');
    expect(userImage?.field).toBe('image');
  });

  it('knows the keys of the service: the id, the documents (a list), the account, the creation time', () => {
    const own = userDetailsModel.answers.created.filter((key) => key.field === undefined);
    expect(own.map((key) => [key.key, key.list])).toEqual([
      ['id', false],
      ['documents', true],
      ['account', false],
      ['createdAt', false],
    ]);
  });

  it('answers a date field as a date-time where the answer says date-time, and only there', () => {
    const dateTimes = (shape: 'created' | 'updated') =>
      userDetailsModel.answers[shape].filter((key) => key.dateTime).map((key) => key.key);
    expect(dateTimes('created')).toEqual(['dateOfBirth']);
    expect(dateTimes('updated')).toEqual(['dateOfBirth']);
  });

  it('gives each optional field its absent value: the default, null, an object of them', () => {
    const absent = Object.fromEntries(
      userDetailsModel.input.map((field) => [field.name, field.absent?.value]),
    );
    expect(absent).toMatchObject({
      email: undefined,
      otherName: null,
      isGhanaCardVerified: false,
      image: null,
      kyc: { occupation: null, address: null, validFrom: null, validTo: null, refNumber: null },
      accountType: null,
    });
  });

  it('is the same read from the trimmed schemas it ships as from the whole document', () => {
    expect(deriveUserDetailsModel(openapiDocument)).toEqual(userDetailsModel);
  });
});

describe('a new optional field in UserInput and both answers', () => {
  for (const answers of ['required', 'optional'] as const) {
    it(`is a field of the model and a key of both answers (${answers} there)`, () => {
      const model = deriveUserDetailsModel(withNewField(answers));
      expect(model.input.at(-1)).toEqual({
        name: 'fieldAddedByTest',
        required: false,
        absent: { value: null },
        date: false,
        types: ['string', 'null'],
        account: false,
      });
      for (const shape of ['created', 'updated'] as const) {
        expect(model.answers[shape].at(-1)).toEqual({
          key: 'fieldAddedByTest',
          name: 'fieldAddedByTest',
          field: 'fieldAddedByTest',
          dateTime: false,
          list: false,
          required: answers === 'required',
        });
      }
      expect(canonicalKeys(model).map((key) => key.name)).toContain('fieldAddedByTest');
    });
  }

  it('is answered as sent, and as null for details stored before it existed', () => {
    const model = deriveUserDetailsModel(withNewField());
    const own = { id: 'u', documents: [], account: null, createdAt: 't' };
    const stored = withDefaults(model.input, { ...requestDetails, fieldAddedByTest: 'Maa' });
    expect(answerOf(model, 'created', stored, own).fieldAddedByTest).toBe('Maa');
    expect(answerOf(model, 'updated', stored, own).fieldAddedByTest).toBe('Maa');
    const before = { ...stored };
    delete before.fieldAddedByTest;
    expect(answerOf(model, 'created', before, own)).toHaveProperty('fieldAddedByTest', null);
  });
});

describe('deriveUserDetailsModel refuses', () => {
  it('a spec without one of the three schemas', () => {
    const document = structuredClone(openapiDocument);
    delete (document.components.schemas as Schema).UserUpdated;
    expect(() => deriveUserDetailsModel(document)).toThrow(/no schema UserUpdated/);
  });

  it('an x-input-field that names no field of UserInput', () => {
    const document = structuredClone(openapiDocument);
    const created = (document.components.schemas as Record<string, Schema>).UserCreated as Schema;
    (created.properties as Record<string, Schema>).userImage = {
      type: 'string',
      'x-input-field': 'picture',
    };
    expect(() => deriveUserDetailsModel(document)).toThrow(
      'UserCreated.userImage has x-input-field "picture", which is no field of UserInput.',
    );
  });
});

describe('withDefaults', () => {
  it('gives what a body leaves out its absent value, into kyc, and keeps what it has', () => {
    const body = { email: 'a@example.com', otherName: 'Serwaa', kyc: { occupation: 'Trader' } };
    const complete = withDefaults(userDetailsModel.input, body);
    expect(complete).toMatchObject({
      email: 'a@example.com',
      otherName: 'Serwaa',
      gender: null,
      isGhanaCardVerified: false,
      kyc: { occupation: 'Trader', address: null, validFrom: null, validTo: null, refNumber: null },
    });
    expect(complete).not.toHaveProperty('monthlyIncome');
    expect(body).toEqual({
      email: 'a@example.com',
      otherName: 'Serwaa',
      kyc: { occupation: 'Trader' },
    });
  });

  it('keeps an explicit null and false as sent', () => {
    const complete = withDefaults(userDetailsModel.input, { otherName: null, kyc: null });
    expect(complete.otherName).toBeNull();
    expect(complete.kyc).toBeNull();
  });

  it('gives each call its own absent objects', () => {
    const first = withDefaults(userDetailsModel.input, {});
    (first.kyc as Schema).occupation = 'changed';
    expect((withDefaults(userDetailsModel.input, {}).kyc as Schema).occupation).toBeNull();
  });
});

describe('presentValue', () => {
  const kyc = userDetailsModel.input.find((field) => field.name === 'kyc');
  const gender = userDetailsModel.input.find((field) => field.name === 'gender');

  it('is the absent value of a field left out, and the value given otherwise', () => {
    if (!gender || !kyc) throw new Error('the spec has no gender or kyc');
    expect(presentValue(gender, undefined)).toBeNull();
    expect(presentValue(gender, 'female')).toBe('female');
    expect(presentValue(kyc, undefined)).toEqual(withDefaults(userDetailsModel.input, {}).kyc);
  });

  it('completes an object that lacks a field, and gives back one that lacks none as it is', () => {
    if (!kyc) throw new Error('the spec has no kyc');
    const partial = { occupation: 'Trader' };
    expect(presentValue(kyc, partial)).toEqual({ ...withDefaults(kyc.fields ?? [], partial) });
    expect(partial).toEqual({ occupation: 'Trader' });
    const complete = withDefaults(kyc.fields ?? [], partial);
    expect(presentValue(kyc, complete)).toBe(complete);
  });
});

describe('answerOf', () => {
  const own = { id: 'u', documents: ['d'], account: null, createdAt: '2026-01-01T00:00:00.000Z' };
  const details = requestDetails;

  it("builds each shape's keys in its schema's order, the date as a date-time", () => {
    const created = answerOf(userDetailsModel, 'created', details, own);
    expect(Object.keys(created)).toEqual(propertiesOf('UserCreated'));
    expect(created).toMatchObject({
      dateOfBirth: '1990-05-17T00:00:00.000Z',
      userImage: 'https://example.com/a.png',
      documents: ['d'],
      isGhanaCardVerified: false,
    });
    const updated = answerOf(userDetailsModel, 'updated', details, own);
    expect(Object.keys(updated)).toEqual(propertiesOf('UserUpdated'));
    expect(updated).toMatchObject({ image: 'https://example.com/a.png', monthlyIncome: 10 });
  });

  it('throws when a key the answer requires has no value', () => {
    const { createdAt: _, ...withoutTime } = own;
    expect(() => answerOf(userDetailsModel, 'created', details, withoutTime)).toThrow(
      'The UserCreated answer needs createdAt, which has no value.',
    );
  });
});

describe('dateOf', () => {
  it('reads the date written at the start of a date-time, or a date', () => {
    expect(dateOf('2000-02-29T00:00:00Z')).toBe('2000-02-29');
    expect(dateOf('1990-05-17T23:59:59-05:00')).toBe('1990-05-17');
    expect(dateOf('1990-05-17')).toBe('1990-05-17');
    expect(dateOf('17/05/1990')).toBeUndefined();
  });
});
