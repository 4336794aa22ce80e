/**
 * The orders the spec writes its request bodies' members in (src/spec/key-orders.ts): each
 * request example's, and the request body schema's, which a sandbox's diagnosis tries.
 */
import { openapiDocument } from '@institution-api/types';
import { describe, expect, it } from 'vitest';
import { documentedKeyOrders, requestExamples } from '../../src/spec/index.js';

describe('documentedKeyOrders', () => {
  const orders = documentedKeyOrders(openapiDocument);

  it("has each request example's keys in the order the example writes them", () => {
    for (const { value } of requestExamples(openapiDocument, 'createUser')) {
      const keys = Object.keys(value as object);
      const order = orders.find(
        (candidate) => candidate.slice(0, keys.length).join() === keys.join(),
      );
      expect(order, keys.join()).toBeDefined();
    }
  });

  it("has the request body schema's properties in its order, nested ones after", () => {
    const schemaOrder = orders.find(
      (order) => order.includes('bankName') && order.includes('refNumber'),
    );
    expect(schemaOrder?.slice(0, 3)).toEqual(['email', 'firstName', 'lastName']);
    expect(schemaOrder?.indexOf('refNumber')).toBeGreaterThan(
      schemaOrder?.indexOf('bankName') ?? 0,
    );
  });

  it('lists each order once, and none of a document without request bodies', () => {
    expect(new Set(orders.map((order) => order.join())).size).toBe(orders.length);
    expect(documentedKeyOrders({ paths: {} })).toEqual([]);
  });
});
