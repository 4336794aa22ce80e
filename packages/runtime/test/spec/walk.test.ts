import { openapiDocument } from '@institution-api/types';
import { describe, expect, it } from 'vitest';
import {
  branchesOf,
  propertiesOf,
  requiredOf,
  resolveSchema,
  walkSchema,
} from '../../src/spec/index.js';

const userInput = { $ref: '#/components/schemas/UserInput' };

describe('resolveSchema', () => {
  it("follows a $ref, the referring schema's own keywords over the target's", () => {
    const created = resolveSchema(openapiDocument, { $ref: '#/components/schemas/UserCreated' });
    const userImage = resolveSchema(
      openapiDocument,
      (created.properties as Record<string, unknown>).userImage,
    );
    expect(userImage['x-input-field']).toBe('image');
    expect(userImage.format).toBe('uri');
  });
});

describe('propertiesOf, requiredOf, branchesOf', () => {
  it("read UserInput's properties in order, its required names, its account variants", () => {
    const names = propertiesOf(openapiDocument, userInput).map(([name]) => name);
    expect(names.slice(0, 3)).toEqual(['email', 'firstName', 'lastName']);
    const [, firstName] = propertiesOf(openapiDocument, userInput)[1] ?? [];
    expect(firstName?.minLength).toBe(1);
    expect(requiredOf(openapiDocument, userInput)).toContain('ghanaCardNumber');
    expect(branchesOf(openapiDocument, userInput, 'oneOf').map((branch) => branch.title)).toEqual([
      'No account',
      'MOMO account',
      'BANK account',
    ]);
    expect(branchesOf(openapiDocument, userInput, 'anyOf')).toEqual([]);
  });
});

describe('walkSchema', () => {
  it('visits every schema a schema is made of, each once, targets of $ref included', () => {
    const seen: string[] = [];
    walkSchema(openapiDocument, userInput, (_, pointer) => seen.push(pointer));
    expect(seen[0]).toBe('#');
    expect(seen).toContain('#/components/schemas/UserInput');
    expect(seen).toContain('#/components/schemas/Kyc');
    expect(seen).toContain('#/components/schemas/BankAccountDetails');
    expect(seen.filter((pointer) => pointer === '#/components/schemas/GhanaMobileNumber')).toEqual([
      '#/components/schemas/GhanaMobileNumber',
    ]);
  });

  it('ends on a recursive schema', () => {
    const document = {
      components: {
        schemas: {
          Tree: { properties: { children: { items: { $ref: '#/components/schemas/Tree' } } } },
        },
      },
    };
    const seen: string[] = [];
    walkSchema(document, { $ref: '#/components/schemas/Tree' }, (_, pointer) => seen.push(pointer));
    expect(seen).toEqual([
      '#',
      '#/components/schemas/Tree',
      '#/components/schemas/Tree/properties/children',
      '#/components/schemas/Tree/properties/children/items',
    ]);
  });
});
