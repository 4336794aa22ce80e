/**
 * What a run would do (`--dry-run`): the plan of the bundled spec, and where the update's `{id}`
 * comes from (links.ts). Nothing is sent: the plan builds the generators only.
 */
import { openapiDocument } from '@institution-api/types';
import { describe, expect, it } from 'vitest';
import { linksOf } from '../../src/run/links.js';
import { planText } from '../../src/run/plan.js';
import { readContract } from '../../src/spec/contract.js';

const contract = readContract(openapiDocument);
const credentials = {
  main: { publicKey: 'pk_main', secretKey: 'sk_main_never_printed' },
  other: { publicKey: 'pk_other', secretKey: 'sk_other_never_printed' },
};

describe('linksOf', () => {
  it("takes the update's {id} from the create's answer", () => {
    const update = contract.operations.find((operation) => operation.id === 'updateUser');
    if (!update) throw new Error('no updateUser');
    expect(
      linksOf(contract, update).map(({ parameter, property, producer }) => [
        parameter,
        property,
        producer.id,
      ]),
    ).toEqual([['id', 'id', 'createUser']]);
  });
});

describe('planText', () => {
  const plan = planText(
    contract,
    { baseUrl: 'http://localhost:8080', credentials, seed: 7, maxExamples: 10 },
    'the bundled spec',
  );

  it('names the service, the contract, the institutions by public key and the budget', () => {
    expect(plan).toContain('  service:      http://localhost:8080');
    expect(plan).toContain(`${openapiDocument.info.version} (the bundled spec)`);
    expect(plan).toContain('  institutions: first pk_main; second pk_other');
    expect(plan).toMatch(/seed 7; at most \d+ requests/);
  });

  it('lists each operation with its phases and examples', () => {
    expect(plan).toContain('  createUser (POST /api/v1/external/users):');
    expect(plan).toContain('  updateUser (PUT /api/v1/external/users/{id}):');
    expect(plan).toContain('    valid data:     10 examples');
    expect(plan).toContain('    invalid data:   20 examples');
    expect(plan).toContain('{id}: the id createUser answers for a new resource');
  });

  it('prints no secret key', () => {
    expect(plan).not.toContain('never_printed');
  });

  it('says what is skipped without a second institution', () => {
    const alone = planText(
      contract,
      { baseUrl: 'http://localhost:8080', credentials: { main: credentials.main }, seed: 1 },
      'x',
    );
    expect(alone).toContain('no second institution (stateful_institution_scope is skipped)');
  });
});
