import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { openapiDocument } from '@institution-api/types';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSpecSchemas, createUserInputErrors, isCalendarDate } from '../src/spec-ajv.js';

describe('createSpecSchemas', () => {
  const schemas = createSpecSchemas(openapiDocument);

  it('accepts every named request example of the spec as a UserInput', () => {
    const examples = openapiDocument.components.examples as Record<string, { value: unknown }>;
    const validate = schemas.validator('UserInput');
    for (const name of ['MomoAccountUser', 'BankAccountUser', 'UserWithoutAccount']) {
      const example = examples[name];
      expect(validate(example?.value), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
  });

  it('refuses a date the calendar does not have, as the server does', () => {
    const examples = openapiDocument.components.examples as Record<string, { value: object }>;
    const validate = schemas.validator('UserInput');
    const body = { ...examples.UserWithoutAccount?.value, dateOfBirth: '1990-02-30' };
    expect(validate(body)).toBe(false);
    expect(validate.errors?.map((e) => e.instancePath)).toContain('/dateOfBirth');
  });

  it('compiles a schema of the document that is not a component, resolving its refs', () => {
    const validate = schemas.compile({
      type: 'object',
      properties: { card: { $ref: '#/components/schemas/GhanaCardNumber' } },
    });
    expect(validate({ card: 'GHA-123456789-0' })).toBe(true);
    expect(validate({ card: 'GHA-12' })).toBe(false);
  });

  it('throws on a schema the spec does not have', () => {
    expect(() => schemas.validator('Nope')).toThrow(/no schema named Nope/);
  });
});

describe('createUserInputErrors', () => {
  const errors = createUserInputErrors(createSpecSchemas(openapiDocument));
  const examples = openapiDocument.components.examples as Record<string, { value: object }>;

  it('phrases a body that breaks an account rule as the rule, one error per field', () => {
    const momo = { ...examples.MomoAccountUser?.value } as Record<string, unknown>;
    const { network: _network, ...withoutNetwork } = momo;
    expect(errors({ ...withoutNetwork, monthlyIncome: 'lots' })).toEqual([
      { path: '/body/network', message: 'network is required when accountType is MOMO' },
      { path: '/body/monthlyIncome', message: 'monthlyIncome must be a number' },
    ]);
  });

  it('finds nothing to say about a valid body', () => {
    expect(errors(examples.BankAccountUser?.value)).toEqual([]);
  });
});

describe('standaloneModule', () => {
  const examples = openapiDocument.components.examples as Record<string, { value: object }>;
  const created = () => structuredClone(examples.UserCreatedNew?.value) as Record<string, unknown>;
  const runtime = createSpecSchemas(openapiDocument);
  const cacheDir = fileURLToPath(new URL('../node_modules/.cache/', import.meta.url));
  let dir: string;
  let compiled: Record<string, ValidateFunction>;

  beforeAll(async () => {
    const code = createSpecSchemas(openapiDocument, { standalone: true }).standaloneModule({
      created: 'UserCreated',
      problem: 'Problem',
    });
    // What a bundler does with the module's require() calls, done by Node here.
    await mkdir(cacheDir, { recursive: true });
    dir = await mkdtemp(cacheDir);
    const file = `${dir}/validators.mjs`;
    await writeFile(
      file,
      `import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);\n${code}`,
    );
    compiled = await import(file);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('has no eval: the validators are code, compiled ahead of time', () => {
    expect(Object.keys(compiled).sort()).toEqual(['created', 'problem']);
    expect(compiled.created?.toString()).not.toMatch(/new Function|eval\(/);
  });

  it.each([
    ['the spec example', (body: Record<string, unknown>) => body],
    [
      'a year 0000 date (ajv-formats admits it; the spec does not)',
      (body: Record<string, unknown>) => ({
        ...body,
        kyc: { ...(body.kyc as object), validTo: '0000-01-01' },
      }),
    ],
    [
      'a day February lacks',
      (body: Record<string, unknown>) => ({
        ...body,
        kyc: { ...(body.kyc as object), validTo: '2023-02-29' },
      }),
    ],
    ['a malformed email', (body: Record<string, unknown>) => ({ ...body, email: 'not-an-email' })],
    ['a malformed id', (body: Record<string, unknown>) => ({ ...body, id: 'user-1' })],
    ['an unknown key', (body: Record<string, unknown>) => ({ ...body, extra: 1 })],
  ])('judges %s as the server does', (_what, change) => {
    const body = change(created());
    const expected = runtime.validator('UserCreated');
    const standalone = compiled.created as ValidateFunction;
    expect(standalone(body)).toBe(expected(body));
    expect(
      standalone.errors?.map(({ instancePath, keyword }) => `${instancePath} ${keyword}`) ?? null,
    ).toEqual(
      expected.errors?.map(({ instancePath, keyword }) => `${instancePath} ${keyword}`) ?? null,
    );
  });

  it('judges a problem document too', () => {
    const problem = examples.ValidationProblem?.value;
    expect(compiled.problem?.(problem)).toBe(true);
    expect(compiled.problem?.({ ...problem, status: 'four hundred' })).toBe(false);
  });

  it('needs the standalone option, and a schema the spec has', () => {
    expect(() => runtime.standaloneModule({ created: 'UserCreated' })).toThrow(/standalone: true/);
    expect(() =>
      createSpecSchemas(openapiDocument, { standalone: true }).standaloneModule({ x: 'Nope' }),
    ).toThrow(/no schema named Nope/);
  });
});

describe('isCalendarDate', () => {
  it.each([
    ['2024-02-29', true],
    ['2023-02-29', false],
    ['1900-02-29', false],
    ['2000-02-29', true],
    ['0000-01-01', false],
    ['0001-01-01', true],
    ['9999-12-31', true],
    ['1990-13-01', false],
    ['1990-1-01', false],
  ])('%s is %s', (value, expected) => {
    expect(isCalendarDate(value)).toBe(expected);
  });
});
