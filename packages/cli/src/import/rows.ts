/**
 * The rows of an input file, streamed (docs/import.md "Input"): CSV with a header row (RFC 4180, by
 * csv-parse: quoted commas, quotes and line breaks, CRLF or LF, a UTF-8 byte order mark) or
 * NDJSON (one request body per line). Each row carries the number of its first physical line.
 *
 * @module
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { pipeline, Transform } from 'node:stream';
import { type CsvError, type Info, parse } from 'csv-parse';
import { bodyOf, type Column } from './columns.js';

/** The two input formats. */
export type InputFormat = 'csv' | 'ndjson';

/** One input row. */
export interface Row {
  /**
   * The row's first physical line in the file, from 1: in a CSV file the header is line 1 and a
   * line break inside a quoted field counts once, CRLF or LF; in NDJSON the line's number.
   */
  line: number;
  /** The request body the row describes, when it could be read. */
  body?: unknown;
  /** Why the row could not be read as a body (a field count unlike the header's, a line that is not JSON). */
  unreadable?: string;
}

/** A file that cannot be read as its format; the message says where and why. */
export class InputError extends Error {
  override readonly name = 'InputError';
}

/** How to read the file. */
export interface ReadOptions {
  format: InputFormat;
  /** Turns the CSV header into columns; throws to refuse it (an unknown column). */
  columns: (header: string[]) => Column[];
  /** Sees every chunk of the file's bytes, in order (the input's hash). */
  tap?: (chunk: Buffer) => void;
}

/** The rows of `path`, read as they are consumed: at most a few chunks of the file are in memory. */
export function readRows(path: string, options: ReadOptions): AsyncGenerator<Row> {
  return options.format === 'csv' ? csvRows(path, options) : ndjsonRows(path, options);
}

function source(path: string, tap: ReadOptions['tap']) {
  const file = createReadStream(path);
  if (!tap) return { file, through: undefined };
  const through = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      try {
        tap(chunk);
      } catch (error) {
        done(error as Error);
        return;
      }
      done(null, chunk);
    },
  });
  return { file, through };
}

async function* csvRows(path: string, { columns, tap }: ReadOptions): AsyncGenerator<Row> {
  const parser = parse({
    bom: true,
    info: true,
    relax_column_count: true, // a short or long row is that row's problem, not the file's
    skip_empty_lines: true,
    // Both line ends, also mixed in one file; csv-parse would otherwise keep the first it meets.
    record_delimiter: ['\r\n', '\n'],
  });
  const { file, through } = source(path, tap);
  let failure: unknown;
  const done = (error: unknown) => {
    if (error) failure = error;
  };
  if (through) pipeline(file, through, parser, done);
  else pipeline(file, parser, done);

  const lines = new CsvLines();
  let plan: Column[] | undefined;
  try {
    for await (const { record, info } of parser as AsyncIterable<{
      record: string[];
      info: Info;
    }>) {
      const line = lines.firstLineOf(record, info);
      if (plan === undefined) {
        plan = columns(record);
        continue;
      }
      if (record.length !== plan.length) {
        yield {
          line,
          unreadable: `the row has ${record.length} field${record.length === 1 ? '' : 's'}; the header has ${plan.length}`,
        };
        continue;
      }
      yield { line, body: bodyOf(plan, record) };
    }
  } catch (error) {
    throw inputError(path, failure ?? error);
  }
  if (failure) throw inputError(path, failure);
  if (plan === undefined)
    throw new InputError(`${path} is empty: a CSV file starts with its header row`);
}

/**
 * First physical lines of CSV records from csv-parse's `info.lines`, the line a record ends on
 * as csv-parse counts: it counts a record's CRLF end once, but every CR and every LF inside a
 * field (`"a\r\nb"` is two lines to it, one line break in the file). The record's own line
 * breaks are taken off, and the CRs csv-parse overcounted in earlier records with them.
 */
export class CsvLines {
  private overcounted = 0;

  firstLineOf(record: readonly string[], info: Pick<Info, 'lines'>): number {
    let breaks = 0;
    let returns = 0;
    for (const field of record) {
      if (!field.includes('\n') && !field.includes('\r')) continue;
      for (let i = 0; i < field.length; i++) {
        const code = field.charCodeAt(i);
        if (code === 13) returns++;
        else if (code === 10) breaks++;
      }
    }
    const line = info.lines - breaks - returns - this.overcounted;
    this.overcounted += returns;
    return line;
  }
}

async function* ndjsonRows(path: string, { tap }: ReadOptions): AsyncGenerator<Row> {
  const { file, through } = source(path, tap);
  let failure: unknown;
  const input = through
    ? pipeline(file, through, (error) => {
        if (error) failure = error;
      })
    : file;
  if (!through)
    file.on('error', (error) => {
      failure = error;
    });
  const reader = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let line = 0;
  try {
    for await (let text of reader) {
      line++;
      if (line === 1 && text.startsWith('\ufeff')) text = text.slice(1);
      if (text.trim() === '') continue;
      try {
        yield { line, body: JSON.parse(text) };
      } catch (error) {
        yield { line, unreadable: `the line is not JSON: ${(error as Error).message}` };
      }
    }
  } catch (error) {
    throw inputError(path, failure ?? error);
  }
  if (failure) throw inputError(path, failure);
}

function inputError(path: string, error: unknown): Error {
  if (error instanceof InputError) return error;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && code.startsWith('CSV_')) {
    return new InputError(`${path} is not valid CSV: ${(error as CsvError).message}`);
  }
  if (typeof code === 'string' && code.startsWith('E')) {
    return new InputError(`cannot read ${path} (${code})`);
  }
  return error instanceof Error ? error : new Error(String(error));
}
