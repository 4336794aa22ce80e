import type { OpenApiDocument } from '@institution-api/types';
import { _, Ajv2020 } from 'ajv/dist/2020.js';
import standaloneCodePlugin from 'ajv/dist/standalone/index.js';
import addFormatsPlugin from 'ajv-formats';
import { specFormats } from './formats.js';
import { numberFormats } from './spec-formats.js';
import type { SpecSchemas } from './spec-schemas.js';

export { fieldErrors, fieldName } from './field-errors.js';
export { isCalendarDate, specFormats } from './formats.js';
export { specAjvFormats } from './spec-formats.js';
export type { SpecSchemas } from './spec-schemas.js';
export { createUserInputErrors } from './user-input-errors.js';

// ajv-formats is CommonJS with `exports.default`; under NodeNext its default import is the module.
const addFormats = addFormatsPlugin as unknown as typeof addFormatsPlugin.default;
// The same for ajv's standalone code generator.
const standaloneCode = standaloneCodePlugin as unknown as typeof standaloneCodePlugin.default;

/** The `$id` under which the spec's components are registered, so `#/components/...` refs resolve. */
const specId = 'urn:institution-api:openapi';

/** OpenAPI's own schema keywords, which JSON Schema 2020-12 does not know (OAS 3.1 §4.8.24). */
const openApiKeywords = ['discriminator', 'xml', 'externalDocs', 'example'];

/**
 * Where standalone validators find their formats at run time: {@link specAjvFormats}, through the
 * package's `./spec-formats` entry, which does not load Ajv.
 */
const standaloneFormats = _`require("@institution-api/runtime/spec-formats").specAjvFormats`;

/** Options of {@link createSpecSchemas}. */
export interface SpecSchemasOptions {
  /**
   * Keep each validator's source, so {@link SpecSchemas.standaloneModule} can write it out.
   * Off by default: it costs memory that a server validating at run time does not need.
   */
  standalone?: boolean;
}

/**
 * Ajv 2020 over the bundled spec's component schemas, with the formats the reference server
 * admits ({@link specFormats}): the one definition of "valid" that the server (beside
 * express-openapi-validator, to re-validate a body against one `oneOf` variant), the conformance
 * suite and the docs' console share, so none of them can disagree with the server.
 *
 * Needs the optional peer dependencies `ajv` and `ajv-formats`; no other entry point of the
 * package loads them.
 *
 * Strict mode stays on, so a typo in the spec fails loudly; OpenAPI's keywords, `x-` extensions
 * and number formats such as `double` are declared instead of switching strictness off.
 */
export function createSpecSchemas(
  document: OpenApiDocument,
  options: SpecSchemasOptions = {},
): SpecSchemas {
  const schemas = structuredClone(document.components.schemas ?? {}) as Record<
    string,
    Record<string, unknown>
  >;
  const ajv = new Ajv2020({
    allErrors: true,
    strict: true,
    verbose: true,
    ...(options.standalone && {
      // Set before ajv-formats, which would otherwise point standalone code at its own formats
      // (without the spec's narrower `date` or the number formats).
      code: { source: true, esm: true, formats: standaloneFormats },
    }),
  });
  addFormats(ajv);
  for (const [name, format] of Object.entries({ ...specFormats, ...numberFormats })) {
    ajv.addFormat(name, format);
  }
  ajv.addVocabulary([...openApiKeywords, ...extensionKeywords(schemas)]);
  // The container the component schemas hang from; Ajv compiles the root to resolve a fragment.
  ajv.addKeyword('components');
  ajv.addSchema({ $id: specId, components: { schemas } });

  const schema = (name: string) => {
    const found = schemas[name];
    if (!found) throw new Error(`The spec has no schema named ${name}.`);
    return found;
  };
  return {
    schema,
    validator(name) {
      schema(name);
      const validate = ajv.getSchema(`${specId}#/components/schemas/${name}`);
      if (!validate) throw new Error(`Could not compile the schema ${name}.`);
      return validate;
    },
    derivedValidator(name, derive) {
      // Refs made absolute, so `#/components/...` inside the derived schema still means the spec.
      return ajv.compile(absoluteRefs(derive(structuredClone(schema(name)))));
    },
    compile(schema) {
      return ajv.compile(absoluteRefs(structuredClone(schema)));
    },
    standaloneModule(exports) {
      if (!options.standalone) {
        throw new Error(
          'standaloneModule needs createSpecSchemas(document, { standalone: true }).',
        );
      }
      for (const name of Object.values(exports)) schema(name);
      return standaloneCode(
        ajv,
        Object.fromEntries(
          Object.entries(exports).map(([key, name]) => [
            key,
            `${specId}#/components/schemas/${name}`,
          ]),
        ),
      );
    },
  };
}

/** Every `x-` key used anywhere in the schemas, declared to Ajv as an annotation. */
function extensionKeywords(value: unknown, found = new Set<string>()): string[] {
  if (Array.isArray(value)) for (const item of value) extensionKeywords(item, found);
  else if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (key.startsWith('x-')) found.add(key);
      extensionKeywords(child, found);
    }
  }
  return [...found];
}

function absoluteRefs<T>(value: T): T {
  if (Array.isArray(value)) return value.map(absoluteRefs) as T;
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, child]) => [
      key,
      key === '$ref' && typeof child === 'string' && child.startsWith('#')
        ? `${specId}${child}`
        : absoluteRefs(child),
    ]),
  ) as T;
}
