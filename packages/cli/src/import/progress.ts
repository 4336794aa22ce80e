/**
 * The import's progress, on stderr only (stdout carries the summary alone, so the report can be
 * piped): a bar on a terminal (cli-progress: rows done of the total, rows/s, ETA), otherwise one
 * plain line every 5 seconds, which a log keeps readable.
 *
 * @module
 */
import cliProgress from 'cli-progress';

/** What is shown at each update. */
export interface ProgressState {
  /** Rows finished, earlier runs included. */
  done: number;
  /** Rows finished by this run, for its rate. */
  doneThisRun: number;
  /** Why the run waits, when it does ("paused 37 s: the service answered 429"). */
  note?: string;
  /** How long the run still waits before it sends again, in ms (added to the ETA). */
  pausedMs?: number;
}

/** A progress display; `stop` leaves the terminal clean for the summary. */
export interface Progress {
  update(state: ProgressState): void;
  stop(): void;
}

/** Where and how to show it. */
export interface ProgressOptions {
  /** Rows in the file. */
  total: number;
  /** The terminal to draw the bar on, or undefined for plain lines. */
  tty: NodeJS.WritableStream | undefined;
  /** Writes a plain line (stderr). */
  write: (text: string) => void;
  /** Between plain lines; default 5000. */
  intervalMs?: number;
  now?: () => number;
}

/** Plain lines every 5 s. */
export const PLAIN_INTERVAL_MS = 5000;

/**
 * The progress of one run: a cli-progress bar on `tty` when there is one, else a plain line
 * through `write` every `intervalMs` (the import gives it stderr: stdout is the summary's).
 */
export function createProgress(options: ProgressOptions): Progress {
  const { total, tty, write, intervalMs = PLAIN_INTERVAL_MS, now = Date.now } = options;
  const started = now();
  let last: ProgressState = { done: 0, doneThisRun: 0 };
  const rate = (state: ProgressState) => {
    const seconds = (now() - started) / 1000;
    return seconds > 0 ? Math.round(state.doneThisRun / seconds) : 0;
  };

  if (tty) {
    const bar = new cliProgress.SingleBar(
      {
        stream: tty,
        format:
          'import |{bar}| {percentage}% | {value}/{total} rows | {rate} rows/s | ETA {eta_formatted} {note}',
        hideCursor: true,
        etaBuffer: 200,
        fps: 5,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(total, 0, { rate: 0, note: '' });
    return {
      update(state) {
        last = state;
        bar.update(state.done, { rate: rate(state), note: state.note ?? '' });
      },
      stop() {
        bar.update(last.done, { rate: rate(last), note: '' });
        bar.stop();
      },
    };
  }

  const line = () => {
    const percent = total > 0 ? ` (${Math.floor((last.done / total) * 100)}%)` : '';
    const perSecond = rate(last);
    const left = total - last.done;
    const waiting = (last.pausedMs ?? 0) / 1000;
    const eta =
      perSecond > 0 && left > 0 ? `, ETA ${formatDuration(waiting + left / perSecond)}` : '';
    const note = last.note ? `; ${last.note}` : '';
    write(
      `import: ${number(last.done)} of ${number(total)} rows${percent}, ${number(perSecond)} rows/s${eta}${note}\n`,
    );
  };
  const timer = setInterval(line, intervalMs);
  timer.unref();
  return {
    update(state) {
      last = state;
    },
    stop() {
      clearInterval(timer);
    },
  };
}

/** `1,234` */
export function number(value: number): string {
  return value.toLocaleString('en-US');
}

/** `1 h 02 min`, `3 min 07 s`, `12.5 s` */
export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${seconds < 10 ? seconds.toFixed(1) : Math.round(seconds)} s`;
  const whole = Math.round(seconds);
  const h = Math.floor(whole / 3600);
  const min = Math.floor((whole % 3600) / 60);
  const s = whole % 60;
  return h > 0
    ? `${h} h ${String(min).padStart(2, '0')} min`
    : `${min} min ${String(s).padStart(2, '0')} s`;
}
