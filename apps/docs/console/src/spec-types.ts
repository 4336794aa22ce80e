/**
 * The console's description of the spec, written at build time by
 * `scripts/lib/console-spec.mjs` from the bundled OpenAPI document the page shows.
 *
 * @module
 */

/** A named request example of an operation (`requestBody.content[...].examples`). */
export interface ConsoleExample {
  name: string;
  summary: string;
  value: unknown;
}

/** A documented answer: its media type and the component schema its body must match. */
export interface ConsoleResponse {
  description: string;
  /** Absent when the spec documents no body for the status. */
  mediaType?: string;
  /** The name of a `#/components/schemas/...` schema. */
  schema?: string;
}

/** One operation of the spec, as the console sends it. */
export interface ConsoleOperation {
  operationId: string;
  /** Upper case: `POST`, `PUT`. */
  method: string;
  /** The path template, e.g. `/api/v1/external/users/{id}`. */
  path: string;
  summary: string;
  /** The names of the path template's parameters, in order. */
  pathParameters: string[];
  examples: ConsoleExample[];
  /** By status code, as the spec writes it (`"201"`). */
  responses: Record<string, ConsoleResponse>;
}

/**
 * The whole description: the spec's relative server URL (the host that serves the page; none when
 * the spec lists absolute URLs only) and every operation.
 */
export interface ConsoleSpec {
  serverUrl: string | undefined;
  operations: ConsoleOperation[];
}
