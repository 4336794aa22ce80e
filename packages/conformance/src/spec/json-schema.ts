/** A JSON Schema (2020-12) object as written in the spec; read generically, keyword by keyword. */
export type JsonSchema = Record<string, unknown>;

/** True for a plain JSON object (not an array, not null): the spec toolkit's. */
export { isObject } from '@institution-api/runtime/spec';
