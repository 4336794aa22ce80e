/**
 * The header fields of the contract, read from the spec: what a caller sends and what an answer
 * documents. A service that answers browsers on other origins allows and exposes these (spec:
 * "Assumptions", "CORS"), so the list follows the spec rather than a copy of it.
 *
 * @module
 */
import type { OpenApiDocument } from '@institution-api/types';
import { dereference, isObject, operationsOf } from '../spec/index.js';

/** The header fields of the contract, each once, by its name in the spec, in document order. */
export interface ContractHeaderFields {
  /**
   * Every field a request may carry: the security schemes' (`Authorization`), `Content-Type` when
   * an operation has a body, and the header parameters of every path and operation
   * (`Signature-Input`, `Signature`, `Content-Digest`, `Prefer`).
   */
  request: string[];
  /** Every field an answer documents (`Retry-After`, `RateLimit`, the CORS fields…). */
  response: string[];
}

/** The header fields `document` declares for requests and for answers. */
export function contractHeaderFields(document: OpenApiDocument): ContractHeaderFields {
  const request = new FieldNames();
  const response = new FieldNames();
  for (const scheme of Object.values(document.components?.securitySchemes ?? {})) {
    const resolved = dereference(document, scheme);
    if (!isObject(resolved)) continue;
    if (resolved.type === 'apiKey' && resolved.in === 'header') request.add(resolved.name);
    if (resolved.type === 'http') request.add('Authorization');
  }
  const found = operationsOf(document);
  const items = [...new Set(found.map(({ item }) => item))];
  const operations = found.map(({ operation }) => operation);
  if (operations.some((operation) => operation.requestBody !== undefined)) {
    request.add('Content-Type');
  }
  const parameterLists = [
    ...items.map((item) => item.parameters),
    ...operations.map((operation) => operation.parameters),
  ];
  for (const list of parameterLists) {
    for (const parameter of Array.isArray(list) ? list : []) {
      const resolved = dereference(document, parameter);
      if (isObject(resolved) && resolved.in === 'header') request.add(resolved.name);
    }
  }
  for (const operation of operations) {
    const responses = isObject(operation.responses) ? operation.responses : {};
    for (const answer of Object.values(responses)) {
      const resolved = dereference(document, answer);
      if (isObject(resolved) && isObject(resolved.headers)) {
        for (const name of Object.keys(resolved.headers)) response.add(name);
      }
    }
  }
  return { request: request.names, response: response.names };
}

/** Field names, each once: HTTP field names are case-insensitive, the first spelling is kept. */
class FieldNames {
  readonly names: string[] = [];
  readonly #seen = new Set<string>();
  add(name: unknown): void {
    if (typeof name !== 'string' || this.#seen.has(name.toLowerCase())) return;
    this.#seen.add(name.toLowerCase());
    this.names.push(name);
  }
}
