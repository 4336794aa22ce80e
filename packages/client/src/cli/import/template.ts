/**
 * The import's CSV template (`templates/customers.csv`, written by the build): every column of
 * the spec's `UserInput` and one row per request example of `createUser` (a MOMO account, a BANK
 * account, none), all read from the bundled spec, so the template follows the contract.
 *
 * @module
 */
import type { OpenApiDocument } from '@institution-api/types';
import { allColumns } from './columns.js';

type Schema = Record<string, unknown>;

/** The template of `document`: a header of every column, then each request example, RFC 4180. */
export function templateCsv(document: OpenApiDocument): string {
  const schemas = (document.components.schemas ?? {}) as Record<string, Schema>;
  const resolve = (ref: string) => {
    const schema = schemas[ref.replace('#/components/schemas/', '')];
    if (!schema) throw new Error(`the spec has no schema ${ref}`);
    return schema;
  };
  const columns = allColumns(resolve('#/components/schemas/UserInput'), resolve);
  const rows = requestExamples(document).map((body) =>
    columns.map((column) => cellOf(valueAt(body, column.split('.')))),
  );
  return `${[columns, ...rows].map((row) => row.join(',')).join('\n')}\n`;
}

/** The values of the request examples of `createUser`, in the spec's order. */
function requestExamples(document: OpenApiDocument): unknown[] {
  const examples = (document.components.examples ?? {}) as Record<string, { value?: unknown }>;
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item) as Schema[]) {
      if (operation?.operationId !== 'createUser') continue;
      const content = (operation.requestBody as Schema | undefined)?.content as
        | Record<string, { examples?: Record<string, { $ref?: string; value?: unknown }> }>
        | undefined;
      return Object.values(content?.['application/json']?.examples ?? {}).map(
        (example) => examples[String(example.$ref).split('/').pop() ?? '']?.value ?? example.value,
      );
    }
  }
  throw new Error('the spec has no createUser operation');
}

function valueAt(body: unknown, path: string[]): unknown {
  let at = body;
  for (const key of path) {
    at = typeof at === 'object' && at !== null ? (at as Schema)[key] : undefined;
  }
  return at;
}

/** A cell as RFC 4180 writes it: quoted when it holds a comma, a quote or a line break. */
function cellOf(value: unknown): string {
  if (value === undefined || value === null) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
