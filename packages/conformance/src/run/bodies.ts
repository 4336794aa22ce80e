import { pointerOf } from '@institution-api/runtime/spec';
import type fc from 'fast-check';
import { schemaArbitrary } from '../generate/schema-arbitrary.js';
import { textUnit } from '../semantics/user-semantics.js';
import type { Contract, Operation } from '../spec/contract.js';

/** The options of the JSON-Schema → fast-check converter for a contract. */
export function arbitraryOptionsOf(contract: Contract) {
  return { document: contract.document as unknown, textUnit };
}

/**
 * A generator of valid request bodies for every operation that takes one. Built before anything
 * is sent, so a schema keyword the generator does not know fails the run at once.
 */
export function bodyArbitraries(contract: Contract): Map<Operation, fc.Arbitrary<unknown>> {
  const options = arbitraryOptionsOf(contract);
  const bodies = new Map<Operation, fc.Arbitrary<unknown>>();
  for (const operation of contract.operations) {
    if (!operation.body) continue;
    const pointer = pointerOf([
      'paths',
      operation.path,
      operation.method.toLowerCase(),
      'requestBody',
    ]);
    bodies.set(operation, schemaArbitrary(operation.body.schema, options, pointer));
  }
  return bodies;
}
