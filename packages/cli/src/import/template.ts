/**
 * The import's CSV template (`templates/customers.csv`, written by the build): every column of
 * the spec's `UserInput` and one row per request example of `createUser` (a MOMO account, a BANK
 * account, none), all read from the bundled spec, so the template follows the contract.
 *
 * @module
 */

import { requestExamples } from '@institution-api/runtime/spec';
import { deriveUserDetailsModel } from '@institution-api/runtime/user-details';
import type { OpenApiDocument } from '@institution-api/types';
import { allColumns } from './columns.js';

type Schema = Record<string, unknown>;

/** The template of `document`: a header of every column, then each request example, RFC 4180. */
export function templateCsv(document: OpenApiDocument): string {
  const columns = allColumns(deriveUserDetailsModel(document).input);
  const rows = requestExamples(document, 'createUser').map(({ value }) =>
    columns.map((column) => cellOf(valueAt(value, column.split('.')))),
  );
  return `${[columns, ...rows].map((row) => row.join(',')).join('\n')}\n`;
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
