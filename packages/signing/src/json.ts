/**
 * Serialization of what gets signed. The signature is over the text that is sent, so the
 * serializer and the sender must be the same call: these helpers return the text for the
 * caller to send verbatim ("Authentication" section of the spec).
 *
 * @module
 */

/**
 * `JSON.stringify`, refusing values it silently turns into `undefined` (functions, symbols,
 * `undefined` itself), because "signing nothing" and then sending no body would be a
 * confusing failure on the server.
 */
export function bodyText(body: unknown): string {
  const text = JSON.stringify(body);
  if (typeof text !== 'string') {
    throw new TypeError('body is not JSON-serializable (JSON.stringify returned undefined)');
  }
  return text;
}

/**
 * `JSON.stringify` of a query object, what a GET request signs (spec: `InstitutionSignature`).
 * Insertion order of the keys is part of the signed text, so the URL must be built from the
 * same object in the same order.
 */
export function queryText(query: Record<string, unknown>): string {
  if (query === null || typeof query !== 'object' || Array.isArray(query)) {
    throw new TypeError('query must be a plain object');
  }
  return bodyText(query);
}
