import { openapiDocument } from '@institution-api/types';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { editsOf, MUTATION_KEYWORDS } from '../../src/generate/edits.js';
import { schemaArbitrary } from '../../src/generate/schema-arbitrary.js';
import { textUnit } from '../../src/semantics/user-semantics.js';
import { readContract } from '../../src/spec/contract.js';

const userInput = { $ref: '#/components/schemas/UserInput' };
const options = { document: openapiDocument, textUnit };
const validate = readContract(openapiDocument).validator(userInput);
const bodies = fc.sample(schemaArbitrary(userInput, options), { seed: 11, numRuns: 60 });
const edits = bodies.flatMap((body) =>
  editsOf(body, [userInput], options).map((edit) => ({ body, edit })),
);

describe('editsOf', () => {
  it('offers a mutation of every kind, each labelled with the field an error must name', () => {
    const kinds = new Set(edits.filter(({ edit }) => !edit.valid).map(({ edit }) => edit.keyword));
    // The request schemas have no `maximum`: every other kind the editor knows is there.
    expect([...kinds].sort()).toEqual(
      MUTATION_KEYWORDS.filter((kind) => kind !== 'maximum').sort(),
    );
    for (const { edit } of edits) expect(edit.label).toContain(edit.pointer || 'the body');
  });

  it('mutations make the body invalid, almost always (the run confirms each with Ajv)', () => {
    const mutations = edits.filter(({ edit }) => !edit.valid);
    const stillValid = mutations.filter(({ body, edit }) => validate(edit.apply(body)));
    expect(stillValid.length / mutations.length).toBeLessThan(0.05);
  });

  it('boundary edits keep the body valid, with lengths at their bounds counted in code points', () => {
    const boundaries = edits.filter(({ edit }) => edit.valid);
    const broken = boundaries
      .filter(({ body, edit }) => !validate(edit.apply(body)))
      .map(({ edit }) => edit.label);
    expect(broken).toEqual([]);
    const firstName = boundaries.find(({ edit }) => edit.label === '/firstName at maxLength 100');
    if (!firstName) throw new Error('no boundary edit of firstName');
    const value = (firstName.edit.apply(firstName.body) as { firstName: string }).firstName;
    expect([...value]).toHaveLength(100);
    expect(value.length).toBe(200); // UTF-16 units: a server counting those refuses a valid name
  });

  it('breaks a conditional rule of the oneOf (a MOMO account without its network)', () => {
    const momo = edits.find(
      ({ body, edit }) =>
        (body as { accountType?: string }).accountType === 'MOMO' &&
        edit.keyword === 'oneOf' &&
        edit.field === 'network',
    );
    expect(momo).toBeDefined();
    const body = momo?.edit.apply(momo.body) as Record<string, unknown>;
    expect('network' in body).toBe(false);
    expect(validate(body)).toBe(false);
  });

  it('never changes the value it edits', () => {
    const [first] = edits;
    const before = JSON.stringify(first?.body);
    for (const { body, edit } of edits.filter((entry) => entry.body === first?.body))
      edit.apply(body);
    expect(JSON.stringify(first?.body)).toBe(before);
  });
});
