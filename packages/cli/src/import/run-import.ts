/**
 * `institution-api import <file>` (spec Assumptions, "Bulk import"): registers every row of a CSV or NDJSON file as a
 * user through the client (same signer, same retry policy), `--concurrency` rows in flight at
 * most, slowing down when the service pushes back, with one report line per row, a journal to
 * resume from, progress on stderr and a summary on stdout.
 *
 * @module
 */
import { setMaxListeners } from 'node:events';
import {
  createUsersClient,
  fetchTransport,
  parseRetryAfter,
  type Transport,
  type UsersClientError,
  usersUrl,
} from '@institution-api/client';
import { type CliIo, DEFAULT_API_URL, failureMessage } from '../cli-io.js';
import { checkedApiUrl, requiredEnv, UsageError } from '../command-line.js';
import { ColumnError } from './columns.js';
import { type Inspected, inspect } from './inspect.js';
import { type Journal, JournalError, openJournal } from './journal.js';
import { createNodeHttpTransport, type NodeHttpTransport } from './node-http-transport.js';
import { IMPORT_USAGE, type ImportOptions, MAX_CONCURRENCY, parseImportArgs } from './options.js';
import { type Outcome, type ReportEntry, settle } from './outcome.js';
import { createProgress, formatDuration, number, type Progress } from './progress.js';
import { openReport, type ReportSink } from './report.js';
import { createRowCheck, invalidRow, type RowCheck } from './row-check.js';
import { InputError, type Row, readRows } from './rows.js';
import { SendWindow } from './send-window.js';
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

/** Rows that in a row got no answer, or were refused, before the run stops (the service is gone). */
const TROUBLE_LIMIT = 20;
/** The journal is synced to the disk at least this often. */
const SYNC_INTERVAL_MS = 1000;

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
        options,
        args,
        io,
        { baseUrl, ...credentials },
        inspected,
        check,
        journal,
        report,
        summaryOut,
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

/** Why a run ended before its last row. */
type Stop =
  | { why: 'interrupted'; signal: 'SIGINT' | 'SIGTERM' }
  | { why: 'unreachable'; message: string }
  | { why: 'trouble'; message: string };

/** The sending run: reads rows as the window allows, sends them, records each as it finishes. */
async function send(
  options: ImportOptions,
  args: string[],
  io: ImportIo,
  target: { baseUrl: string; publicKey: string; secretKey: string },
  inspected: Inspected,
  check: RowCheck,
  journal: Journal,
  report: ReportSink,
  summaryOut: (text: string) => void,
): Promise<number> {
  const started = performance.now();
  const window = new SendWindow(options.concurrency);
  // An injected `fetch` (tests, a caller's own) replaces the node:http transport altogether.
  let http: NodeHttpTransport | undefined;
  let base: Transport;
  if (io.fetch === undefined) {
    http = createNodeHttpTransport({ sockets: options.concurrency });
    base = http.send;
  } else {
    base = fetchTransport(io.fetch);
  }
  // Every attempt's answer passes here, the client's own retries included: a 429 or 503 halves
  // the window at once, before the client has spent its retries on it.
  const observed: Transport = async (exchange, signal) => {
    const answer = await base(exchange, signal);
    const { status, headers } = answer.response;
    if (status === 429 || status === 503) {
      window.pushedBack(parseRetryAfter(headers.get('Retry-After')));
      lastPushBack = status;
    }
    return answer;
  };
  const client = createUsersClient({
    baseUrl: target.baseUrl,
    publicKey: target.publicKey,
    secretKey: target.secretKey,
    messageSignatures: options.messageSignatures,
    ...(options.algorithm || options.encoding
      ? {
          signature: {
            algorithm: options.algorithm ?? 'sha256',
            encoding: options.encoding ?? 'hex',
          },
        }
      : {}),
    transport: observed,
  });

  const counts = new Map(journal.counts);
  const earlier = [...counts.values()].reduce((a, b) => a + b, 0);
  let doneThisRun = 0;
  let lastPushBack = 0;
  const showProgress = () => {
    const pause = window.pauseLeft();
    progress.update({
      done: earlier + doneThisRun,
      doneThisRun,
      ...(pause > 0 && {
        note: `paused ${formatDuration(pause / 1000)}: the service answered ${lastPushBack}`,
        pausedMs: pause,
      }),
    });
  };
  const progress: Progress = createProgress({
    total: inspected.rows,
    tty:
      io.tty === undefined
        ? process.stderr.isTTY
          ? process.stderr
          : undefined
        : (io.tty ?? undefined),
    write: io.stderr,
  });
  /**
   * A row is finished once its line is in the journal: written at once, before another row can
   * start, so a killed run loses no more than the rows in flight. The report, which the next run
   * rebuilds from the journal anyway, is written in larger pieces.
   */
  const record = (entry: ReportEntry) => {
    counts.set(entry.outcome, (counts.get(entry.outcome) ?? 0) + 1);
    doneThisRun++;
    const text = `${JSON.stringify(entry)}\n`;
    journal.append(text);
    report.write(text);
    showProgress();
  };
  const sync = setInterval(() => {
    report.flush();
    journal.sync();
    showProgress();
  }, SYNC_INTERVAL_MS);
  sync.unref();

  let stop: Stop | undefined;
  let wake: (() => void) | undefined;
  const changed = () => {
    const resume = wake;
    wake = undefined;
    resume?.();
  };
  /** Resolves when a row finishes, an interruption comes, or after `ms`. */
  const waitForChange = (ms: number | undefined) =>
    new Promise<void>((resolve) => {
      const timer = ms === undefined ? undefined : setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  const abortInFlight = new AbortController();
  // One listener per row in flight (the client's own, removed when the call ends).
  setMaxListeners(MAX_CONCURRENCY + 1, abortInFlight.signal);
  const interrupted = (signal: 'SIGINT' | 'SIGTERM') => {
    if (stop?.why === 'interrupted') {
      abortInFlight.abort(); // a second Ctrl-C: those rows are sent again on resumption
      return;
    }
    stop = { why: 'interrupted', signal };
    io.stderr(
      `\n${signal}: finishing the ${window.inFlight} rows in flight (again to stop at once)…\n`,
    );
    changed();
  };
  const unregister = (io.onInterrupt ?? processSignals)(interrupted);

  /** An answer showed the service reachable and the keys accepted; until then, one row at a time. */
  let accepted = false;
  let trouble = 0;
  const again: Row[] = [];

  const sendRow = (row: Row) => {
    window.inFlight++;
    client
      .createUser(row.body as never, { signal: abortInFlight.signal })
      .then((result) => settle(row.line, result))
      .then((settled) => {
        window.inFlight--;
        switch (settled.kind) {
          case 'finished':
            accepted = true;
            trouble = 0;
            window.answered();
            record(settled.entry);
            break;
          case 'again':
            accepted = true;
            again.push(row);
            break;
          case 'unreached':
          case 'refused': {
            if (!accepted) {
              stop ??= {
                why: 'unreachable',
                message:
                  settled.kind === 'unreached'
                    ? failureMessage(settled.error as UsersClientError, {
                        target: usersUrl(target.baseUrl),
                        baseUrl: target.baseUrl,
                        sentIncome: undefined,
                      })
                    : refusedMessage(settled.problem.status, target.baseUrl),
              };
              break;
            }
            record(settled.entry);
            if (++trouble >= TROUBLE_LIMIT && stop === undefined) {
              stop = {
                why: 'trouble',
                message: `the last ${trouble} rows got no answer or were refused (${settled.entry.problem?.title ?? 'failed'}); stopped`,
              };
            }
            break;
          }
          case 'aborted':
            break;
        }
        changed();
      });
  };

  const rows = readRows(options.file, { format: options.format, columns: check.columns });
  let exhausted = false;
  try {
    while (stop === undefined) {
      if (!window.canSend() || (!accepted && window.inFlight > 0)) {
        const pause = window.pauseLeft();
        await waitForChange(pause > 0 ? pause : undefined);
        continue;
      }
      let row = again.shift();
      if (row === undefined) {
        if (exhausted) {
          if (window.inFlight === 0) break;
          await waitForChange(undefined);
          continue;
        }
        const next = await rows.next();
        if (next.done) {
          exhausted = true;
          continue;
        }
        row = next.value;
        if (journal.finished.has(row.line)) continue; // finished by an earlier run
        const problem = localProblem(row, check);
        if (problem) {
          record({ line: row.line, outcome: 'invalid', problem });
          continue;
        }
      }
      sendRow(row);
    }
    while (window.inFlight > 0) await waitForChange(undefined);
  } finally {
    await rows.return(undefined);
    unregister();
    clearInterval(sync);
    report.flush();
    journal.sync();
    progress.stop();
    http?.close();
  }

  const seconds = (performance.now() - started) / 1000;
  const total = inspected.rows;
  if (stop?.why === 'unreachable') {
    io.stderr(`institution-api: ${stop.message}\nNo row reached the service.\n`);
    return IMPORT_EXIT.usage;
  }
  summaryOut(
    summary(options, total, counts, { thisRun: doneThisRun, seconds, pushBacks: window.pushBacks }),
  );
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

function refusedMessage(status: number, baseUrl: string): string {
  if (status === 401) {
    return `${baseUrl} refused the signature (401): check INSTITUTION_PUBLIC_KEY, INSTITUTION_SECRET_KEY, --algorithm and --encoding`;
  }
  return `${baseUrl}/api/v1/external/users answered ${status}: check INSTITUTION_API_URL (the service's address, without /api/v1)`;
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
