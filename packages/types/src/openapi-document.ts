/**
 * The little of an OpenAPI 3.1 document's shape that consumers of the embedded spec rely on.
 * Deliberately loose: the generated types in `paths` and `components` are the precise contract.
 * @see https://spec.openapis.org/oas/v3.1.0#openapi-object
 */
export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description?: string; [key: string]: unknown };
  paths: Record<string, Record<string, unknown>>;
  components: Record<string, Record<string, unknown>>;
  [key: string]: unknown;
}
