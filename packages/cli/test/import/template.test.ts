import { readFile } from 'node:fs/promises';
import { userDetailsModel } from '@institution-api/runtime/user-details';
import { specExample } from '@institution-api/test-support/user-bodies';
import { openapiDocument } from '@institution-api/types';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { planColumns } from '../../src/import/columns.js';
import { templateCsv } from '../../src/import/template.js';

type Schema = Record<string, unknown>;
const schemas = openapiDocument.components.schemas as Record<string, Schema>;
const example = (name: string) => specExample<Schema>(name);

/** The template's records, the header first. */
const recordsOf = (csv: string) => parse(csv) as string[][];

describe('the import template', () => {
  it('is what the build wrote from the bundled spec', async () => {
    const built = await readFile(new URL('../../templates/customers.csv', import.meta.url), 'utf8');
    expect(built).toBe(templateCsv(openapiDocument));
  });

  it("has a column for each field of UserInput, kyc's by name, each one the import takes", () => {
    const [header = []] = recordsOf(templateCsv(openapiDocument));
    const fields = Object.keys(schemas.UserInput?.properties as Schema);
    expect(header.filter((column) => !column.includes('.'))).toEqual(
      fields.filter((field) => field !== 'kyc'),
    );
    expect(header.filter((column) => column.startsWith('kyc.'))).toEqual(
      Object.keys(schemas.Kyc?.properties as Schema).map((field) => `kyc.${field}`),
    );
    expect(planColumns(header, userDetailsModel.input).map((c) => c.name)).toEqual(header);
  });

  it("has a row for each request example of createUser, each cell the example's value", () => {
    const [header = [], momo = [], ...others] = recordsOf(templateCsv(openapiDocument));
    expect(others).toHaveLength(2);
    const body = example('MomoAccountUser');
    const kyc = body.kyc as Schema;
    header.forEach((column, index) => {
      const value = column.startsWith('kyc.') ? kyc[column.slice(4)] : body[column];
      expect(momo[index], column).toBe(value === undefined ? '' : String(value));
    });
  });

  it('takes a field added to the spec as a column, with its value in the example that has it', () => {
    const document = structuredClone(openapiDocument);
    const input = (document.components.schemas as Record<string, Schema>).UserInput as Schema;
    input.properties = { ...(input.properties as Schema), fieldAddedByTest: { type: 'string' } };
    const examples = document.components.examples as Record<string, { value: Schema }>;
    (examples.MomoAccountUser as { value: Schema }).value.fieldAddedByTest = 'Maa, "Ama"';
    const [header = [], momo = [], bank = []] = recordsOf(templateCsv(document));
    const column = header.indexOf('fieldAddedByTest');
    expect(column).toBe(header.length - 1);
    expect(momo[column]).toBe('Maa, "Ama"');
    expect(bank[column]).toBe('');
  });
});
