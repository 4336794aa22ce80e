/**
 * The shape of the spec's compiled schemas, apart from the Ajv instance that makes them
 * (`spec-ajv.ts`), so the modules that take one (`user-input-errors.ts`) need not import it.
 *
 * @module
 */
import type { ValidateFunction } from 'ajv/dist/2020.js';

/** Compiles the component schemas of the bundled spec, by name. */
export interface SpecSchemas {
  /** The validator of `#/components/schemas/<name>`; throws if the spec has no such schema. */
  validator(name: string): ValidateFunction;
  /** A schema derived from `<name>` (e.g. without its `oneOf`), compiled beside the spec's own. */
  derivedValidator(
    name: string,
    derive: (schema: Record<string, unknown>) => Record<string, unknown>,
  ): ValidateFunction;
  /**
   * Any schema of the document (a parameter's, a header's, a response's inline schema), compiled
   * beside the component schemas, so its `#/components/...` refs resolve to the spec's own.
   */
  compile(schema: Record<string, unknown>): ValidateFunction;
  /** The raw schema object of `<name>`, as written in the bundled spec. */
  schema(name: string): Record<string, unknown>;
  /**
   * An ES module exporting, for each key of `exports`, the validator of the component schema it
   * names (Ajv standalone code): validators compiled ahead of time, for a page whose
   * Content-Security-Policy forbids `eval` and `new Function`. The module imports ajv's run-time
   * helpers and `@institution-api/runtime/spec-formats`, so it is meant for a bundler. Needs
   * `{ standalone: true }`.
   */
  standaloneModule(exports: Record<string, string>): string;
}
