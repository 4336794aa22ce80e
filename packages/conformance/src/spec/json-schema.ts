/** A JSON Schema (2020-12) object as written in the spec; read generically, keyword by keyword. */
export type JsonSchema = Record<string, unknown>;

/** True for a plain JSON object (not an array, not null). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
