/**
 * The report of an import (docs/import.md "The report"): one NDJSON line per input row, to a file
 * (`--report FILE`, default `<file>.report.ndjson`) or to stdout (`--report -`). Each run
 * rewrites it from the journal's finished rows and then appends the rows it finishes, so after a
 * resumed run it holds every row exactly once, as the journal does.
 *
 * @module
 */
import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';

/** Where report lines go; `flush` writes what is buffered. */
export interface ReportSink {
  /** Adds complete lines (each ending with a newline). */
  write(lines: string): void;
  flush(): void;
  /**
   * Puts the report in place of the last one: until then it is written beside it
   * (`<report>.tmp`), so a run that stops before it starts (a journal refused) leaves the last
   * report as it was.
   */
  publish(): void;
  /** Closes it; a report never published is removed. */
  close(): void;
}

/** Report lines are gathered up to this many characters between writes. */
const BUFFER_CHARS = 64 * 1024;

/** Opens a new report for `path`, or on `stdout` for `-`. */
export function openReport(path: string, stdout: (text: string) => void): ReportSink {
  const pending = `${path}.tmp`;
  const fd = path === '-' ? undefined : openSync(pending, 'w');
  let published = fd === undefined;
  const out = fd === undefined ? stdout : (text: string) => writeSync(fd, text);
  let buffered = '';
  const flush = () => {
    if (buffered === '') return;
    out(buffered);
    buffered = '';
  };
  return {
    write(lines) {
      buffered += lines;
      if (buffered.length >= BUFFER_CHARS) flush();
    },
    flush,
    publish() {
      if (published) return;
      flush();
      renameSync(pending, path);
      published = true;
    },
    close() {
      flush();
      if (fd === undefined) return;
      closeSync(fd);
      if (!published) rmSync(pending, { force: true });
    },
  };
}
