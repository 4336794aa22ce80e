/**
 * The first pass over an input file, before anything is sent (spec Assumptions, "Bulk import"): its SHA-256, which binds
 * the journal to it, its row count (the progress's total), the first line of every row (which
 * the journal's entries must name), and every error of the file itself (not UTF-8, not CSV, an
 * unknown column), so that a broken file stops the run before the first row, not halfway.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import { LineSet } from './line-set.js';
import type { RowCheck } from './row-check.js';
import { InputError, type InputFormat, readRows } from './rows.js';

/** What the first pass over the file learnt. */
export interface Inspected {
  sha256: string;
  bytes: number;
  rows: number;
  /** The first line of every row: a journal naming any other line was tampered with. */
  rowLines: LineSet;
}

/**
 * Reads the whole file once before anything is sent: its hash (which binds the journal), its
 * row count (the progress's total), and every error of the file itself (not UTF-8, not CSV, an
 * unknown column), so that a broken file stops the run before the first row, not halfway.
 */
export async function inspect(
  file: string,
  format: InputFormat,
  check: RowCheck,
): Promise<Inspected> {
  const hash = createHash('sha256');
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let bytes = 0;
  const tap = (chunk: Buffer) => {
    hash.update(chunk);
    try {
      decoder.decode(chunk, { stream: true });
    } catch {
      throw new InputError(
        `${file} is not valid UTF-8 (between bytes ${bytes} and ${bytes + chunk.length}): save it as UTF-8`,
      );
    }
    bytes += chunk.length;
  };
  const rowLines = new LineSet();
  let rows = 0;
  for await (const row of readRows(file, { format, columns: check.columns, tap })) {
    rows++;
    rowLines.add(row.line);
  }
  try {
    decoder.decode();
  } catch {
    throw new InputError(
      `${file} is not valid UTF-8 (it ends inside a character): save it as UTF-8`,
    );
  }
  return { sha256: hash.digest('hex'), bytes, rows, rowLines };
}
