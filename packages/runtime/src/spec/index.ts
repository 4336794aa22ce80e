/**
 * `@institution-api/runtime/spec`: the one toolkit that reads a bundled OpenAPI 3.1 document, used
 * by every reader of the spec in the repository (the details model, the sandbox, the mock's
 * routes, the conformance suite, the import, the tests' bodies). Pure functions of the document
 * they are given (any document, not only the bundled one), no dependency; runs anywhere.
 *
 * - **local references**: {@link resolveLocalRef}, {@link dereference}, {@link componentName},
 *   {@link pointerSegments}, {@link pointerOf};
 * - **walking a schema**: {@link resolveSchema}, {@link propertiesOf}, {@link requiredOf},
 *   {@link branchesOf}, {@link walkSchema};
 * - **the types a schema admits**: {@link schemaTypes};
 * - **a schema without its document**: {@link toJsonSchema} (self-contained JSON Schema);
 * - **operations and their examples**: {@link operationsOf}, {@link operationById},
 *   {@link parametersOf}, {@link requestExamples}, {@link responseExamples},
 *   {@link mediaExamples}, {@link contentOf};
 * - **the order of documented bodies' members**: {@link documentedKeyOrders}.
 *
 * @module
 */
export {
  contentOf,
  mediaExamples,
  type NamedExample,
  requestExamples,
  responseExamples,
} from './examples.js';
export { toJsonSchema } from './json-schema.js';
export { documentedKeyOrders } from './key-orders.js';
export {
  componentName,
  dereference,
  isObject,
  type JsonObject,
  pointerOf,
  pointerSegments,
  resolveLocalRef,
} from './local-ref.js';
export {
  httpMethods,
  operationById,
  operationsOf,
  parametersOf,
  type SpecOperation,
} from './operations.js';
export { type JsonType, jsonTypeOf, schemaTypes } from './schema-types.js';
export { branchesOf, propertiesOf, requiredOf, resolveSchema, walkSchema } from './walk.js';
