import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';

// ajv-formats is CommonJS: under NodeNext its default import is `module.exports`, the plugin itself,
// which its typings only describe as `.default`.
const addFormats = addFormatsPlugin as unknown as typeof addFormatsPlugin.default;

/** The bundled spec, as `npm run build` writes it for every other workspace. */
export const spec = JSON.parse(
  readFileSync(new URL('../dist/openapi.json', import.meta.url), 'utf8'),
) as {
  info: { description: string };
  paths: Record<string, Record<string, unknown>>;
  components: {
    schemas: Record<string, unknown>;
    examples: Record<string, { value: unknown }>;
    responses: Record<string, unknown>;
  };
};

/**
 * A strict JSON Schema 2020-12 validator over the whole spec, as any conforming validator would
 * read it: `allErrors` so a test sees every broken rule, formats checked.
 */
export const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false });
addFormats(ajv);
// OpenAPI's numeric formats are not JSON Schema formats; `double` only documents the width.
ajv.addFormat('double', { type: 'number', validate: (n: number) => Number.isFinite(n) });
// The document is added whole so that its internal `$ref`s resolve; the OpenAPI fields around the
// schemas are not schema keywords, so strict mode is told to treat them as annotations.
for (const field of ['openapi', 'info', 'servers', 'tags', 'security', 'paths', 'components']) {
  ajv.addKeyword(field);
}
// Specification extensions (`x-input-field` on a schema property) are annotations too.
const extensions = new Set<string>();
const collectExtensions = (value: unknown): void => {
  if (Array.isArray(value)) value.forEach(collectExtensions);
  else if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (key.startsWith('x-')) extensions.add(key);
      collectExtensions(child);
    }
  }
};
collectExtensions(spec.components);
for (const keyword of extensions) ajv.addKeyword(keyword);
ajv.addSchema(spec, 'spec');

export function schemaValidator(name: string): ValidateFunction {
  const validate = ajv.getSchema(`spec#/components/schemas/${name}`);
  if (!validate) throw new Error(`no schema ${name} in the spec`);
  return validate;
}
