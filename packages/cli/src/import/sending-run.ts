/**
 * The sending part of an import (docs/import.md "Concurrency and back-pressure", "Resuming"):
 * rows read as the window allows, each sent through the client, each recorded in the journal as
 * it finishes; an interruption, a service out of reach or a run of refusals stops it. One run per
 * `institution-api import`, after the file was inspected and the journal opened.
 *
 * @module
 */
import { setMaxListeners } from 'node:events';
import {
  createUsersClient,
  fetchTransport,
  parseRetryAfter,
  type Transport,
  type UsersClient,
  type UsersClientError,
  usersUrl,
} from '@institution-api/client';
import { type CliIo, failureMessage } from '../cli-io.js';
import type { Inspected } from './inspect.js';
import type { Journal } from './journal.js';
import { createNodeHttpTransport, type NodeHttpTransport } from './node-http-transport.js';
import { type ImportOptions, MAX_CONCURRENCY } from './options.js';
import { type Outcome, type ReportEntry, type Settled, settle } from './outcome.js';
import { createProgress, formatDuration, type Progress } from './progress.js';
import type { ReportSink } from './report.js';
import type { RowCheck } from './row-check.js';
import { type Row, readRows } from './rows.js';
import { SendWindow } from './send-window.js';

/** Rows that in a row got no answer, or were refused, before the run stops (the service is gone). */
const TROUBLE_LIMIT = 20;
/** The journal is synced to the disk at least this often. */
const SYNC_INTERVAL_MS = 1000;

/** What a sending run works with: the command, its target, and what the import opened. */
export interface SendContext {
  options: ImportOptions;
  target: { baseUrl: string; publicKey: string; secretKey: string };
  inspected: Inspected;
  check: RowCheck;
  journal: Journal;
  report: ReportSink;
  /** The run's own outside world: the CLI's, its terminal, and how interruptions reach it. */
  io: Pick<CliIo, 'stderr' | 'fetch'> & {
    tty?: NodeJS.WritableStream | null;
    onInterrupt: (handler: (signal: 'SIGINT' | 'SIGTERM') => void) => () => void;
  };
  /** The problem of a row that is not sent, if it is not: unreadable or invalid. */
  localProblem: (row: Row) => ReportEntry['problem'];
}

/** Why a run ended before its last row. */
export type Stop =
  | { why: 'interrupted'; signal: 'SIGINT' | 'SIGTERM' }
  | { why: 'unreachable'; message: string }
  | { why: 'trouble'; message: string };

/** What a finished run leaves for the summary and the exit code. */
export interface SendResult {
  counts: Map<Outcome, number>;
  doneThisRun: number;
  pushBacks: number;
  stop: Stop | undefined;
}

/** One sending run; `run()` resolves when the last row finished or the run stopped. */
export class SendingRun {
  private readonly window: SendWindow;
  private readonly client: UsersClient;
  private readonly http: NodeHttpTransport | undefined = undefined;
  private readonly progress: Progress;
  private readonly counts: Map<Outcome, number>;
  private readonly earlier: number;
  private readonly abortInFlight = new AbortController();
  /** Rows to send again (a `429` or `503` spent the client's retries), before new ones. */
  private readonly again: Row[] = [];
  private doneThisRun = 0;
  private lastPushBack = 0;
  private stop: Stop | undefined;
  private wake: (() => void) | undefined;
  /** An answer showed the service reachable and the keys accepted; until then, one row at a time. */
  private accepted = false;
  /** Rows in a row with no answer or refused. */
  private trouble = 0;

  constructor(private readonly context: SendContext) {
    const { options, io, journal, inspected } = context;
    this.window = new SendWindow(options.concurrency);
    // An injected `fetch` (tests, a caller's own) replaces the node:http transport altogether.
    let base: Transport;
    if (io.fetch === undefined) {
      this.http = createNodeHttpTransport({ sockets: options.concurrency });
      base = this.http.send;
    } else {
      base = fetchTransport(io.fetch);
    }
    this.client = this.createClient(base);
    this.counts = new Map(journal.counts);
    this.earlier = [...this.counts.values()].reduce((a, b) => a + b, 0);
    this.progress = createProgress({
      total: inspected.rows,
      tty:
        io.tty === undefined
          ? process.stderr.isTTY
            ? process.stderr
            : undefined
          : (io.tty ?? undefined),
      write: io.stderr,
    });
    // One listener per row in flight (the client's own, removed when the call ends).
    setMaxListeners(MAX_CONCURRENCY + 1, this.abortInFlight.signal);
  }

  /**
   * The client, over `base`. Every attempt's answer passes through it, the client's own retries
   * included: a 429 or 503 halves the window at once, before the client has spent its retries.
   */
  private createClient(base: Transport): UsersClient {
    const { options, target } = this.context;
    const observed: Transport = async (exchange, signal) => {
      const answer = await base(exchange, signal);
      const { status, headers } = answer.response;
      if (status === 429 || status === 503) {
        this.window.pushedBack(parseRetryAfter(headers.get('Retry-After')));
        this.lastPushBack = status;
      }
      return answer;
    };
    return createUsersClient({
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
  }

  /** Sends every row not finished yet; resolves with what the summary reports. */
  async run(): Promise<SendResult> {
    const sync = setInterval(() => {
      this.context.report.flush();
      this.context.journal.sync();
      this.showProgress();
    }, SYNC_INTERVAL_MS);
    sync.unref();
    const unregister = this.context.io.onInterrupt((signal) => this.interrupted(signal));
    const { options, check } = this.context;
    const rows = readRows(options.file, { format: options.format, columns: check.columns });
    try {
      await this.sendAll(rows);
      while (this.window.inFlight > 0) await this.waitForChange(undefined);
    } finally {
      await rows.return(undefined);
      unregister();
      clearInterval(sync);
      this.context.report.flush();
      this.context.journal.sync();
      this.progress.stop();
      this.http?.close();
    }
    return {
      counts: this.counts,
      doneThisRun: this.doneThisRun,
      pushBacks: this.window.pushBacks,
      stop: this.stop,
    };
  }

  /** Reads and sends rows while the window allows, until the last or a stop. */
  private async sendAll(rows: AsyncGenerator<Row>): Promise<void> {
    let exhausted = false;
    while (this.stop === undefined) {
      if (!this.window.canSend() || (!this.accepted && this.window.inFlight > 0)) {
        const pause = this.window.pauseLeft();
        await this.waitForChange(pause > 0 ? pause : undefined);
        continue;
      }
      let row = this.again.shift();
      if (row === undefined) {
        if (exhausted) {
          if (this.window.inFlight === 0) return;
          await this.waitForChange(undefined);
          continue;
        }
        const next = await rows.next();
        if (next.done) {
          exhausted = true;
          continue;
        }
        row = next.value;
        if (this.context.journal.finished.has(row.line)) continue; // finished by an earlier run
        const problem = this.context.localProblem(row);
        if (problem) {
          this.record({ line: row.line, outcome: 'invalid', problem });
          continue;
        }
      }
      this.send(row);
    }
  }

  /** Sends one row; its answer is recorded, or the row sent again, when it comes. */
  private send(row: Row): void {
    this.window.inFlight++;
    this.client
      .createUser(row.body as never, { signal: this.abortInFlight.signal })
      .then((result) => settle(row.line, result))
      .then((settled) => {
        this.window.inFlight--;
        this.settled(row, settled);
        this.changed();
      });
  }

  /** What a row's answer does to the run. */
  private settled(row: Row, settled: Settled): void {
    switch (settled.kind) {
      case 'finished':
        this.accepted = true;
        this.trouble = 0;
        this.window.answered();
        this.record(settled.entry);
        break;
      case 'again':
        this.accepted = true;
        this.again.push(row);
        break;
      case 'unreached':
      case 'refused':
        this.troubled(settled);
        break;
      case 'aborted':
        break;
    }
  }

  /**
   * A row with no answer, or refused: before any answer showed the service reachable, the run
   * stops at once (nothing would get through); after, it stops after {@link TROUBLE_LIMIT} in a
   * row.
   */
  private troubled(settled: Extract<Settled, { kind: 'unreached' | 'refused' }>): void {
    const { baseUrl } = this.context.target;
    if (!this.accepted) {
      this.stop ??= {
        why: 'unreachable',
        message:
          settled.kind === 'unreached'
            ? failureMessage(settled.error as UsersClientError, {
                target: usersUrl(baseUrl),
                baseUrl,
                sentIncome: undefined,
              })
            : refusedMessage(settled.problem.status, baseUrl),
      };
      return;
    }
    this.record(settled.entry);
    if (++this.trouble >= TROUBLE_LIMIT && this.stop === undefined) {
      this.stop = {
        why: 'trouble',
        message: `the last ${this.trouble} rows got no answer or were refused (${settled.entry.problem?.title ?? 'failed'}); stopped`,
      };
    }
  }

  /**
   * A row is finished once its line is in the journal: written at once, before another row can
   * start, so a killed run loses no more than the rows in flight. The report, which the next run
   * rebuilds from the journal anyway, is written in larger pieces.
   */
  private record(entry: ReportEntry): void {
    this.counts.set(entry.outcome, (this.counts.get(entry.outcome) ?? 0) + 1);
    this.doneThisRun++;
    const text = `${JSON.stringify(entry)}\n`;
    this.context.journal.append(text);
    this.context.report.write(text);
    this.showProgress();
  }

  private showProgress(): void {
    const pause = this.window.pauseLeft();
    this.progress.update({
      done: this.earlier + this.doneThisRun,
      doneThisRun: this.doneThisRun,
      ...(pause > 0 && {
        note: `paused ${formatDuration(pause / 1000)}: the service answered ${this.lastPushBack}`,
        pausedMs: pause,
      }),
    });
  }

  /** Ctrl-C or SIGTERM: finish the rows in flight; a second one aborts them. */
  private interrupted(signal: 'SIGINT' | 'SIGTERM'): void {
    if (this.stop?.why === 'interrupted') {
      this.abortInFlight.abort(); // a second Ctrl-C: those rows are sent again on resumption
      return;
    }
    this.stop = { why: 'interrupted', signal };
    this.context.io.stderr(
      `\n${signal}: finishing the ${this.window.inFlight} rows in flight (again to stop at once)…\n`,
    );
    this.changed();
  }

  /** Wakes the loop: a row finished, or an interruption came. */
  private changed(): void {
    const resume = this.wake;
    this.wake = undefined;
    resume?.();
  }

  /** Resolves when a row finishes, an interruption comes, or after `ms`. */
  private waitForChange(ms: number | undefined): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = ms === undefined ? undefined : setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}

function refusedMessage(status: number, baseUrl: string): string {
  if (status === 401) {
    return `${baseUrl} refused the signature (401): check INSTITUTION_PUBLIC_KEY, INSTITUTION_SECRET_KEY, --algorithm and --encoding`;
  }
  return `${baseUrl}/api/v1/external/users answered ${status}: check INSTITUTION_API_URL (the service's address, without /api/v1)`;
}
