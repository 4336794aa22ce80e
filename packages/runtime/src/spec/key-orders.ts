/**
 * The orders in which the document writes the members of its request bodies: each request
 * example's keys as they appear, and each request body schema's properties in the schema's order
 * (nested objects' after), every level in one list, each key once. The orders a signer who copies
 * the docs writes a body in (an example pasted, a struct typed from the schema's table), which a
 * sandbox's diagnosis tries when a body arrives in another order (spec: `SignatureDiagnosis`).
 *
 * @module
 */
import { contentOf, requestExamples } from './examples.js';
import { isObject } from './local-ref.js';
import { operationsOf } from './operations.js';
import { walkSchema } from './walk.js';

/** The documented orders of the request bodies' members, each distinct one once. */
export function documentedKeyOrders(document: unknown): string[][] {
  const orders: string[][] = [];
  const add = (keys: string[]) => {
    if (keys.length > 1 && !orders.some((order) => order.join('\n') === keys.join('\n'))) {
      orders.push(keys);
    }
  };
  for (const { id, operation } of operationsOf(document)) {
    if (id === undefined) continue;
    for (const { value } of requestExamples(document, id)) add(exampleKeys(value));
    const media = contentOf(document, operation.requestBody)['application/json'];
    if (media !== undefined) add(schemaKeys(document, media.schema));
  }
  return orders;
}

/** An example's keys, at every level, in order of appearance. */
function exampleKeys(value: unknown): string[] {
  const keys: string[] = [];
  const visit = (item: unknown): void => {
    if (Array.isArray(item)) item.forEach(visit);
    else if (isObject(item)) {
      for (const [key, inner] of Object.entries(item)) {
        if (!keys.includes(key)) keys.push(key);
        visit(inner);
      }
    }
  };
  visit(value);
  return keys;
}

/** A schema's property names, the outer schema's first, then those of what it is made of. */
function schemaKeys(document: unknown, schema: unknown): string[] {
  const keys: string[] = [];
  walkSchema(document, schema, (at) => {
    if (!isObject(at.properties)) return;
    for (const key of Object.keys(at.properties)) if (!keys.includes(key)) keys.push(key);
  });
  return keys;
}
