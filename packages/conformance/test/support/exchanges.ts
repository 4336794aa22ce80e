/** Exchanges made up for the checks' unit tests: an operation of the spec and a canned answer. */
import { type OpenApiDocument, openapiDocument } from '@institution-api/types';
import { answerOf, type Exchange } from '../../src/http/exchange.js';
import { type Contract, readContract } from '../../src/spec/contract.js';

export const contract = readContract(openapiDocument);

/** The spec's operation `id`. */
export function operation(id: string, from: Contract = contract) {
  const found = from.operations.find((candidate) => candidate.id === id);
  if (!found) throw new Error(`no operation ${id}`);
  return found;
}

/** An exchange of `operationId` whose answer is `status`, `headers` and `body` (JSON unless a string). */
export function exchange(
  operationId: string,
  status: number,
  body: unknown,
  headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' },
  from: Contract = contract,
): Exchange {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return {
    operation: operation(operationId, from),
    request: {
      method: 'POST',
      url: 'http://service/',
      target: '/',
      headers: {},
      authorization: { kind: 'signed', as: 'main' },
    },
    answer: answerOf(status, headers, new TextEncoder().encode(text)),
  };
}

/** The spec's named example `name` (its value). */
export function example(name: string): Record<string, unknown> {
  const examples = (openapiDocument as OpenApiDocument).components.examples as Record<
    string,
    { value: Record<string, unknown> }
  >;
  const found = examples[name]?.value;
  if (!found) throw new Error(`no example ${name}`);
  return structuredClone(found);
}

export const PROBLEM = { 'content-type': 'application/problem+json' };
