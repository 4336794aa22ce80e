/**
 * CSV columns as request fields (spec Assumptions, "Bulk import"; docs/import.md "Input"): a column is a field of the spec's
 * `UserInput`, with a dot for nesting (`kyc.occupation`), and each cell becomes the type the
 * field's schema asks for. The fields are the details model's (`@institution-api/runtime/user-details`),
 * read from the spec, so a field added to the contract, of the account too, is a column at once.
 *
 * @module
 */
import type { DetailField } from '@institution-api/runtime/user-details';

/** What a cell becomes: the JSON type the field's schema takes. */
export type CellType = 'string' | 'number' | 'boolean';

/** One column of the header: where its cells go in the body, and as what. */
export interface Column {
  /** The header's name for it, e.g. `kyc.occupation`. */
  name: string;
  /** The path in the body: `['kyc', 'occupation']`. */
  path: string[];
  type: CellType;
}

/** A header that cannot be imported; the message names the column and what is wrong. */
export class ColumnError extends Error {
  override readonly name = 'ColumnError';
}

/**
 * The columns of `header`, checked against `fields` (the details model's `UserInput` fields).
 * Throws a {@link ColumnError} for an unknown column (naming it), an object column (`kyc`
 * instead of `kyc.occupation`), an empty name or a name given twice.
 */
export function planColumns(header: readonly string[], fields: readonly DetailField[]): Column[] {
  const seen = new Set<string>();
  return header.map((name, index) => {
    if (name === '') throw new ColumnError(`column ${index + 1} of the header has no name`);
    if (seen.has(name)) throw new ColumnError(`column "${name}" is in the header twice`);
    seen.add(name);
    const path = name.split('.');
    let within: readonly DetailField[] = fields;
    let at: DetailField | undefined;
    for (const [depth, segment] of path.entries()) {
      at = within.find((field) => field.name === segment);
      if (!at) {
        const owner = depth === 0 ? 'UserInput' : path.slice(0, depth).join('.');
        throw new ColumnError(
          `unknown column "${name}": ${owner} has no field "${segment}" (columns are the request's field names, with a dot for nesting, e.g. kyc.occupation)`,
        );
      }
      within = at.fields ?? [];
    }
    const types = new Set((at as DetailField).types);
    if (types.has('object') || types.has('array')) {
      throw new ColumnError(
        `column "${name}" is ${types.has('object') ? 'an object' : 'a list'}: name its fields instead, with a dot (e.g. ${name}.${at?.fields?.[0]?.name ?? 'field'})`,
      );
    }
    // A field that takes a string keeps the cell as written (a mobile number's leading 0).
    const type: CellType = types.has('string')
      ? 'string'
      : types.has('number') || types.has('integer')
        ? 'number'
        : types.has('boolean')
          ? 'boolean'
          : 'string';
    return { name, path, type };
  });
}

/**
 * Every column `fields` (the details model's `UserInput` fields) have, in their order: a field's
 * name, or for an object (`kyc`) its fields' names with a dot (`kyc.occupation`), in its place.
 * The header of the template, so a field added to the contract is a column of it at once.
 */
export function allColumns(fields: readonly DetailField[], prefix = ''): string[] {
  return fields.flatMap((field) =>
    field.types.includes('object') && field.fields?.length
      ? allColumns(field.fields, `${prefix}${field.name}.`)
      : [`${prefix}${field.name}`],
  );
}

/**
 * The cell as the column's type, or as written when it does not read as one (`abc` for a
 * number), so that the spec's check reports the field and the rule instead of a guess here.
 */
export function typeCell(cell: string, type: CellType): string | number | boolean {
  if (type === 'number') {
    return /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(cell) ? Number(cell) : cell;
  }
  if (type === 'boolean') {
    const lower = cell.toLowerCase();
    if (lower === 'true') return true;
    if (lower === 'false') return false;
  }
  return cell;
}

/** The request body of one CSV record: an empty cell is an absent field. */
export function bodyOf(
  columns: readonly Column[],
  cells: readonly string[],
): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (let i = 0; i < columns.length; i++) {
    const cell = cells[i];
    if (cell === undefined || cell === '') continue;
    const column = columns[i] as Column;
    let into = body;
    const last = column.path.length - 1;
    for (let depth = 0; depth < last; depth++) {
      const key = column.path[depth] as string;
      into[key] ??= {};
      into = into[key] as Record<string, unknown>;
    }
    into[column.path[last] as string] = typeCell(cell, column.type);
  }
  return body;
}
