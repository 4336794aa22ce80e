/**
 * The tools of `institution-api mcp`, read from the spec: what an agent's client lists and what a
 * model's arguments are checked against. Deriving them is a function of the document alone, so a
 * copy of the bundled spec with a field added shows what a designer's edit of the spec does.
 */

import { normalizeUser } from '@institution-api/client';
import { toJsonSchema } from '@institution-api/runtime/spec';
import {
  userAddedExample,
  userCreatedExample,
  userUpdatedExample,
} from '@institution-api/test-support/user-bodies';
import {
  type OpenApiDocument,
  openapiDocument,
  type UserCreated,
  type UserUpdated,
} from '@institution-api/types';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { describe, expect, it } from 'vitest';
import { deriveOperationTools } from '../../src/mcp/tool-definitions.js';

type Schema = Record<string, unknown>;

const schemas = openapiDocument.components.schemas as Record<string, Schema>;
const userInput = schemas.UserInput as { properties: Record<string, Schema>; required: string[] };
const tools = deriveOperationTools(openapiDocument);
const byName = Object.fromEntries(tools.map((tool) => [tool.tool.name, tool]));

describe('the tools derived from the bundled spec', () => {
  it('are one per operation, named by operationId, titled and described by the spec', () => {
    expect(tools.map(({ tool }) => tool.name)).toEqual(['createUser', 'updateUser']);
    for (const { tool, method, path } of tools) {
      const operation = (openapiDocument.paths[path] as Record<string, Schema>)[
        method.toLowerCase()
      ] as Schema;
      expect(operation.operationId).toBe(tool.name);
      expect(tool.title).toBe(operation.summary);
      // The spec's own words first (what create-or-add means, what update replaces).
      const firstParagraph = String(operation.description).split('\n\n')[0] ?? '';
      expect(tool.description?.startsWith(firstParagraph)).toBe(true);
    }
  });

  it.each(['createUser', 'updateUser'])(
    '%s takes every UserInput field with its constraints and the required ones',
    (name) => {
      const { inputSchema } = byName[name]?.tool ?? {};
      const properties = inputSchema?.properties as Record<string, Schema>;
      for (const [field, schema] of Object.entries(userInput.properties)) {
        expect(properties[field], field).toEqual(toJsonSchema(openapiDocument, schema));
      }
      expect(inputSchema?.required).toEqual(expect.arrayContaining(userInput.required));
      expect(inputSchema?.additionalProperties).toBe(false);
    },
  );

  it("takes updateUser's id, the path's parameter, beside the fields and requires it", () => {
    const inputSchema = byName.updateUser?.tool.inputSchema as Schema;
    expect((inputSchema.required as string[])[0]).toBe('id');
    expect((inputSchema.properties as Record<string, Schema>).id).toMatchObject({
      type: 'string',
      format: 'uuid',
    });
    expect(byName.createUser?.tool.inputSchema.properties).not.toHaveProperty('id');
  });

  it('has no combinator at the root of an input schema, and says the account rules in words', () => {
    for (const { tool } of tools) {
      for (const keyword of ['oneOf', 'anyOf', 'allOf', 'not', 'if']) {
        expect(tool.inputSchema, `${tool.name} ${keyword}`).not.toHaveProperty(keyword);
      }
      // Each account variant of the spec, by its title and what it requires.
      const variants = ((schemas.UserInput?.oneOf ?? []) as Schema[]).map((ref) =>
        toJsonSchema(openapiDocument, ref),
      );
      for (const variant of variants) {
        const required = (variant.required ?? []) as string[];
        const line = String(tool.inputSchema.description)
          .split('\n')
          .find((text) => text.startsWith(`- ${variant.title}: `));
        expect(line, `${tool.name}: ${variant.title}`).toBeDefined();
        if (required.length > 0) expect(line).toContain(`requires ${required.join(', ')}`);
      }
    }
  });

  it('tells what a call does: create adds without destroying, update replaces every detail', () => {
    expect(byName.createUser?.tool.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
    });
    expect(byName.updateUser?.tool.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
    });
  });

  it.each([
    { given: 'a 201 create answer', tool: 'createUser', status: 201, answer: userCreatedExample },
    {
      given: 'a 200 create answer',
      tool: 'createUser',
      status: 200,
      answer: userAddedExample,
    },
    { given: 'an update answer', tool: 'updateUser', status: 200, answer: userUpdatedExample },
  ])('describes the result of $given, as the SDK client checks it', ({ tool, status, answer }) => {
    const { outputSchema } = byName[tool]?.tool ?? {};
    const validate = new AjvJsonSchemaValidator().getValidator(outputSchema as Schema);
    const user = normalizeUser(answer() as UserCreated | UserUpdated);
    const result = validate({ status, message: 'what it means', user });
    expect(result.errorMessage).toBeUndefined();
    expect(result.valid).toBe(true);
    // And refuses what is not such a user.
    expect(validate({ status, message: '', user: { ...user, id: 42 } }).valid).toBe(false);
  });
});

describe('fields added to the spec', () => {
  const field = {
    description: 'The name the customer likes to be called by, or null.',
    type: ['string', 'null'],
    maxLength: 100,
  };
  const accountField = {
    description: "The code of the bank's branch that holds the account, or null.",
    type: ['string', 'null'],
    maxLength: 20,
  };

  /**
   * The bundled spec as a designer changes it: `preferredName` in UserInput and both answers,
   * `branchCode` of BANK accounts in UserInput, its variants (null but in BANK's) and both
   * account objects (`branch_code` in the snake_case one), every answer key required.
   */
  function withFields(document: OpenApiDocument): OpenApiDocument {
    const copy = structuredClone(document);
    const named = copy.components.schemas as Record<
      string,
      { properties: Schema; required?: string[] }
    >;
    const add = (schema: string, key: string, value: Schema, required = false) => {
      const at = named[schema];
      if (!at) throw new Error(`no ${schema}`);
      at.properties[key] = value;
      if (required) at.required = [...(at.required ?? []), key];
    };
    add('UserInput', 'preferredName', field);
    add('UserCreated', 'preferredName', field, true);
    add('UserUpdated', 'preferredName', field, true);
    add('UserInput', 'branchCode', accountField);
    add('BankAccountDetails', 'branchCode', accountField);
    add('MomoAccountDetails', 'branchCode', { type: 'null' });
    add('NoAccountDetails', 'branchCode', { type: 'null' });
    add('AccountCreated', 'branch_code', accountField, true);
    add('AccountUpdated', 'branchCode', accountField, true);
    return copy;
  }

  it('appear in both tools and in the user they answer, with no code change', () => {
    const changed = deriveOperationTools(withFields(openapiDocument));
    for (const { tool } of changed) {
      const input = tool.inputSchema.properties as Record<string, Schema>;
      expect(input.preferredName).toMatchObject({ maxLength: 100 });
      expect(input.branchCode).toMatchObject({ maxLength: 20 });
      const user = (tool.outputSchema.properties as Record<string, Schema>).user as Schema;
      const keys = user.properties as Record<string, Schema>;
      expect(keys.preferredName).toMatchObject({ maxLength: 100 });
      expect(user.required).toContain('preferredName');
      const account = ((keys.account as Schema).anyOf as Schema[])[0] as Schema;
      expect((account.properties as Schema).branchCode).toMatchObject({ maxLength: 20 });
      expect(account.required).toContain('branchCode');
    }
  });
});
