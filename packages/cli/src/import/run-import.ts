/**
 * `institution-api import <file>` (spec Assumptions, "Bulk import"): registers every row of a CSV or NDJSON file as a
 * user through the client (same signer, same retry policy), `--concurrency` rows in flight at
 * most, slowing down when the service pushes back, with one report line per row, a journal to
 * resume from, progress on stderr and a summary on stdout.
 *
 * @module
 */
import { type CliIo, DEFAULT_API_URL } from '../cli-io.js';
import { checkedApiUrl, requiredEnv, UsageError } from '../command-line.js';
import { ColumnError } from './columns.js';
import { type Inspected, inspect } from './inspect.js';
import { type Journal, JournalError, openJournal } from './journal.js';
import { IMPORT_USAGE, type ImportOptions, parseImportArgs } from './options.js';
import type { Outcome, ReportEntry } from './outcome.js';
import { number } from './progress.js';
import { openReport, type ReportSink } from './report.js';
import { createRowCheck, invalidRow, type RowCheck } from './row-check.js';
import { InputError, type Row, readRows } from './rows.js';
import { type SendContext, SendingRun } from './sending-run.js';
import { summary } from './summary.js';

/** Exit codes of an import (docs/import.md "Progress, exit codes"). */
export const IMPORT_EXIT = Object.freeze({
  /** Every row `created` or `existing`. */
  ok: 0,
  /** A row `invalid`, `conflict` or `failed`, or the run stopped for lack of answers. */
  rows: 1,
  /** Usage, file, journal or connection errors before the first row. */
  usage: 2,
  /** Ctrl-C (SIGINT); 143 for SIGTERM. */
  interrupted: 130,
});

/** The outside world of an import, beyond the CLI's. */
export interface ImportIo extends CliIo {
  /**
   * Registers the handler of an interruption (Ctrl-C); returns its unregistration. Default:
   * SIGINT and SIGTERM of this process.
   */
  onInterrupt?: (handler: (signal: 'SIGINT' | 'SIGTERM') => void) => () => void;
  /** The terminal for the progress bar; default stderr when it is a TTY, `null` for plain lines. */
  tty?: NodeJS.WritableStream | null;
}

/** Runs `institution-api import …` (the arguments after `import`); resolves to the exit code. */
export async function runImport(args: string[], io: ImportIo): Promise<number> {
  try {
    const options = parseImportArgs(args);
    if (options.help) {
      io.stdout(IMPORT_USAGE);
      return IMPORT_EXIT.ok;
    }
    return await importFile(options, args, io);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const hint =
      error instanceof UsageError ? 'Run institution-api import --help for usage.\n' : '';
    io.stderr(`institution-api: ${message}\n${hint}`);
    return IMPORT_EXIT.usage;
  }
}

async function importFile(options: ImportOptions, args: string[], io: ImportIo): Promise<number> {
  const credentials = options.dryRun ? undefined : requiredCredentials(io);
  // Checked before the file is read: a run that cannot send stops at once.
  const baseUrl = checkedApiUrl(io.env.INSTITUTION_API_URL || DEFAULT_API_URL);
  const check = createRowCheck();
  let inspected: Inspected;
  try {
    inspected = await inspect(options.file, options.format, check);
  } catch (error) {
    if (error instanceof InputError || error instanceof ColumnError) {
      const message =
        error instanceof ColumnError ? `${options.file}, line 1: ${error.message}` : error.message;
      io.stderr(`institution-api: ${message}; nothing was sent\n`);
      return IMPORT_EXIT.usage;
    }
    throw error;
  }
  const summaryOut = options.report === '-' ? io.stderr : io.stdout;
  const report = openReport(options.report, io.stdout);
  try {
    if (credentials === undefined) {
      report.publish();
      return await dryRun(options, inspected, check, report, summaryOut);
    }
    let journal: Journal;
    try {
      journal = await openJournal(
        options.journal,
        {
          input: { sha256: inspected.sha256, bytes: inspected.bytes, format: options.format },
          target: { url: baseUrl, publicKey: credentials.publicKey },
        },
        {
          rowLines: inspected.rowLines,
          retryFailed: options.retryFailed,
          onEntry: (text) => report.write(`${text}\n`),
        },
      );
    } catch (error) {
      if (error instanceof JournalError) {
        io.stderr(`institution-api: ${error.message}\n`);
        return IMPORT_EXIT.usage;
      }
      throw error;
    }
    report.publish();
    try {
      return await send(
        {
          options,
          target: { baseUrl, ...credentials },
          inspected,
          check,
          journal,
          report,
          io: { ...io, onInterrupt: io.onInterrupt ?? processSignals },
          localProblem: (row) => localProblem(row, check),
        },
        { args, summaryOut },
      );
    } finally {
      journal.close();
    }
  } finally {
    report.close();
  }
}

/** `--dry-run`: every row checked, a report line each (`valid` or `invalid`), nothing sent. */
async function dryRun(
  options: ImportOptions,
  inspected: Inspected,
  check: RowCheck,
  report: ReportSink,
  summaryOut: (text: string) => void,
): Promise<number> {
  const started = performance.now();
  const counts = new Map<Outcome, number>();
  for await (const row of readRows(options.file, {
    format: options.format,
    columns: check.columns,
  })) {
    const problem = localProblem(row, check);
    const entry: ReportEntry = problem
      ? { line: row.line, outcome: 'invalid', problem }
      : { line: row.line, outcome: 'valid' };
    counts.set(entry.outcome, (counts.get(entry.outcome) ?? 0) + 1);
    report.write(`${JSON.stringify(entry)}\n`);
  }
  report.flush();
  summaryOut(
    summary(options, inspected.rows, counts, {
      heading: 'dry run, nothing sent',
      thisRun: counts.size === 0 ? 0 : inspected.rows,
      seconds: (performance.now() - started) / 1000,
    }),
  );
  return (counts.get('invalid') ?? 0) > 0 ? IMPORT_EXIT.rows : IMPORT_EXIT.ok;
}

/** The problem of a row that is not sent: unreadable, or refused by the spec's schema. */
function localProblem(row: Row, check: RowCheck) {
  if (row.unreadable !== undefined) {
    return invalidRow(
      [{ path: '/body', message: row.unreadable }],
      `The row cannot be read: ${row.unreadable}.`,
    );
  }
  return check.problem(row.body);
}

function requiredCredentials(io: CliIo): { publicKey: string; secretKey: string } {
  return {
    publicKey: requiredEnv(io.env, 'INSTITUTION_PUBLIC_KEY'),
    secretKey: requiredEnv(io.env, 'INSTITUTION_SECRET_KEY'),
  };
}

/** What `send` adds to a sending run: the command's arguments and where its summary goes. */
interface SendOutput {
  args: string[];
  summaryOut: (text: string) => void;
}

/** The sending run ({@link SendingRun}), then its summary, what a stopped run says, the exit code. */
async function send(context: SendContext, { args, summaryOut }: SendOutput): Promise<number> {
  const started = performance.now();
  const { counts, doneThisRun, pushBacks, stop } = await new SendingRun(context).run();
  const { options, inspected, io } = context;
  const seconds = (performance.now() - started) / 1000;
  const total = inspected.rows;
  if (stop?.why === 'unreachable') {
    io.stderr(`institution-api: ${stop.message}\nNo row reached the service.\n`);
    return IMPORT_EXIT.usage;
  }
  summaryOut(summary(options, total, counts, { thisRun: doneThisRun, seconds, pushBacks }));
  if (stop !== undefined) {
    const finished = [...counts.values()].reduce((a, b) => a + b, 0);
    const why = stop.why === 'interrupted' ? 'Interrupted' : `Stopped: ${stop.message}`;
    io.stderr(
      `${why}: ${number(finished)} of ${number(total)} rows finished, recorded in ${options.journal}.\n` +
        `Resume with: institution-api import ${args.map(shellQuote).join(' ')}${stop.why === 'interrupted' || options.retryFailed ? '' : ' --retry-failed'}\n`,
    );
    if (stop.why === 'interrupted')
      return stop.signal === 'SIGTERM' ? 143 : IMPORT_EXIT.interrupted;
    return IMPORT_EXIT.rows;
  }
  const bad =
    (counts.get('invalid') ?? 0) + (counts.get('conflict') ?? 0) + (counts.get('failed') ?? 0);
  return bad > 0 ? IMPORT_EXIT.rows : IMPORT_EXIT.ok;
}

function processSignals(handler: (signal: 'SIGINT' | 'SIGTERM') => void): () => void {
  const onInt = () => handler('SIGINT');
  const onTerm = () => handler('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  return () => {
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
  };
}

function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`;
}
