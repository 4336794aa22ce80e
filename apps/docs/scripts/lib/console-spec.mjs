/**
 * What the docs console needs to know of the bundled spec, taken out at build time: the server
 * it calls (the page's own host), and each operation's method, path, summary, named request examples, and for each documented status the
 * media type and the component schema its body must match. The page then carries this small
 * description (and validators compiled from the same spec) instead of reading Redoc's copy.
 *
 * @module
 */

import {
  componentName,
  contentOf,
  dereference,
  mediaExamples,
  operationsOf,
} from '@institution-api/runtime/spec';

/**
 * @typedef {import('../../console/src/spec-types.js').ConsoleSpec} ConsoleSpec
 * @typedef {import('../../console/src/spec-types.js').ConsoleResponse} ConsoleResponse
 */

/**
 * The console's description of a bundled OpenAPI 3.1 document (refs to `#/components/...`
 * resolved).
 *
 * @param {any} document the bundled spec, parsed
 * @returns {ConsoleSpec}
 * @throws {Error} naming the operation, when a response body's schema is not a named component
 *   schema (the console's validators are compiled per component schema)
 */
export function consoleSpec(document) {
  const operations = operationsOf(document).map(({ id, method, path, operation }) => {
    const operationId = id ?? `${method} ${path}`;
    const content = contentOf(document, operation.requestBody)['application/json'];
    return {
      operationId,
      method: method.toUpperCase(),
      path,
      summary: typeof operation.summary === 'string' ? operation.summary : operationId,
      pathParameters: [...path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => String(name)),
      examples: mediaExamples(document, { examples: content?.examples }).map(
        ({ name, summary, value }) => ({
          name,
          summary: summary ?? name,
          value,
        }),
      ),
      responses: Object.fromEntries(
        Object.entries(/** @type {Record<string, unknown>} */ (operation.responses ?? {})).map(
          ([status, response]) => [
            status,
            responseOf(dereference(document, response), `${operationId} ${status}`),
          ],
        ),
      ),
    };
  });
  // The console calls the host that serves the page (Assumptions, "Base URL"): the spec's relative
  // server, resolved against the page. The absolute ones, the local sandbox first, are for tools
  // that run elsewhere (generated clients, the Postman collection).
  const served = document.servers?.find(
    (/** @type {{ url: string }} */ server) => !/^[a-z][a-z\d+.-]*:/i.test(server.url),
  );
  return { serverUrl: served?.url, operations };
}

/**
 * @param {any} response
 * @param {string} where
 * @returns {ConsoleResponse}
 */
function responseOf(response, where) {
  const [mediaType, media] = Object.entries(response.content ?? {})[0] ?? [];
  if (mediaType === undefined) return { description: response.description ?? '' };
  const schema = componentName(media?.schema, 'schemas');
  if (!schema) {
    throw new Error(
      `${where}: the console validates answers against named schemas (#/components/schemas/...), and this one is inline`,
    );
  }
  return { description: response.description ?? '', mediaType, schema };
}

/**
 * The component schemas the answers of these operations are checked against.
 *
 * @param {ConsoleSpec} spec
 * @returns {string[]}
 */
export function responseSchemas(spec) {
  const names = spec.operations.flatMap(({ responses }) =>
    Object.values(responses).flatMap(({ schema }) => (schema ? [schema] : [])),
  );
  return [...new Set(names)].sort();
}
