/**
 * CSV columns as request fields (spec Assumptions, "Bulk import"; README "Input"): a column is a field of the spec's
 * `UserInput`, with a dot for nesting (`kyc.occupation`), and each cell becomes the type the
 * field's schema asks for. Everything is read from the bundled spec, so a field added to the
 * contract is a column at once.
 *
 * @module
 */

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

type Schema = Record<string, unknown>;

/**
 * The columns of `header`, checked against `schema` (the spec's `UserInput`) with `resolve` for
 * `$ref`s. Throws a {@link ColumnError} for an unknown column (naming it), an object column
 * (`kyc` instead of `kyc.occupation`), an empty name or a name given twice.
 */
export function planColumns(
  header: readonly string[],
  schema: Schema,
  resolve: (ref: string) => Schema,
): Column[] {
  const seen = new Set<string>();
  return header.map((name, index) => {
    if (name === '') throw new ColumnError(`column ${index + 1} of the header has no name`);
    if (seen.has(name)) throw new ColumnError(`column "${name}" is in the header twice`);
    seen.add(name);
    const path = name.split('.');
    let at: Schema = deref(schema, resolve);
    for (const [depth, segment] of path.entries()) {
      const properties = at.properties as Record<string, Schema> | undefined;
      const child =
        properties && Object.hasOwn(properties, segment) ? properties[segment] : undefined;
      if (!child) {
        const owner = depth === 0 ? 'UserInput' : path.slice(0, depth).join('.');
        throw new ColumnError(
          `unknown column "${name}": ${owner} has no field "${segment}" (columns are the request's field names, with a dot for nesting, e.g. kyc.occupation)`,
        );
      }
      at = deref(child, resolve);
    }
    const types = typesOf(at, resolve);
    if (types.has('object') || types.has('array')) {
      throw new ColumnError(
        `column "${name}" is ${types.has('object') ? 'an object' : 'a list'}: name its fields instead, with a dot (e.g. ${name}.${firstProperty(at) ?? 'field'})`,
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
 * Every column `schema` (the spec's `UserInput`) has, in the order of its properties: a field's
 * name, or for an object (`kyc`) its fields' names with a dot (`kyc.occupation`), in its place.
 * The header of the template, so a field added to the contract is a column of it at once.
 */
export function allColumns(
  schema: Schema,
  resolve: (ref: string) => Schema,
  prefix = '',
): string[] {
  const properties = (deref(schema, resolve).properties ?? {}) as Record<string, Schema>;
  return Object.entries(properties).flatMap(([name, child]) => {
    const types = typesOf(child, resolve);
    return types.has('object') && firstProperty(deref(child, resolve)) !== undefined
      ? allColumns(child, resolve, `${prefix}${name}.`)
      : [`${prefix}${name}`];
  });
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

function deref(schema: Schema, resolve: (ref: string) => Schema): Schema {
  let at = schema;
  for (let hops = 0; typeof at.$ref === 'string' && hops < 32; hops++) at = resolve(at.$ref);
  return at;
}

/** Every JSON type a value of `schema` may take: `type`, `const`, `enum` and `anyOf`/`oneOf` branches. */
function typesOf(schema: Schema, resolve: (ref: string) => Schema, found = new Set<string>()) {
  const at = deref(schema, resolve);
  for (const type of ([] as unknown[]).concat(at.type ?? [])) found.add(String(type));
  if ('const' in at) found.add(jsonType(at.const));
  if (Array.isArray(at.enum)) for (const value of at.enum) found.add(jsonType(value));
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = at[key];
    if (Array.isArray(branches)) for (const branch of branches) typesOf(branch, resolve, found);
  }
  if (at.properties !== undefined) found.add('object');
  return found;
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function firstProperty(schema: Schema): string | undefined {
  return Object.keys((schema.properties as Schema | undefined) ?? {})[0];
}
