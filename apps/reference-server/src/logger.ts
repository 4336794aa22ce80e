import pino, { type DestinationStream, type Level, type Logger } from 'pino';

/**
 * What the logger censors wherever it appears at these depths: credentials and the request
 * signature must never reach a log (spec Assumptions, "Signature"). The server never logs headers
 * or bodies to begin with; this is the net under that rule.
 */
export const redactedPaths = [
  'authorization',
  '*.authorization',
  '*.headers.authorization',
  'secretKey',
  '*.secretKey',
  '*[*].secretKey',
  '*.*[*].secretKey',
  'databaseUrl',
  '*.databaseUrl',
];

/**
 * Lines are written to stdout in batches of this many bytes, or every {@link flushEveryMs}:
 * one write per batch rather than one per request line.
 */
const batchBytes = 4096;
const flushEveryMs = 250;

/** The stdout destination of each logger made by {@link createLogger}, to flush it at exit. */
type StdoutDestination = ReturnType<typeof pino.destination>;
const stdoutDestinations = new WeakMap<Logger, StdoutDestination>();

/**
 * The server's structured JSON logger (pino): one JSON object per line on stdout, ISO times,
 * level names instead of numbers, and {@link redactedPaths} censored.
 *
 * Stdout is written asynchronously in batches (pino's sonic-boom destination), so logging costs
 * the request path no write system call. A destination that cannot be written (the reader of a
 * pipe has gone: EPIPE, or any other write error) stops logging rather than stopping the server:
 * a service must not fail because nobody reads its logs. Call {@link flushLogs} before exiting.
 */
export function createLogger(options: {
  level: Level | 'silent';
  destination?: DestinationStream;
}): Logger {
  const stdout =
    options.destination === undefined
      ? pino.destination({
          dest: 1,
          sync: false,
          minLength: batchBytes,
          periodicFlush: flushEveryMs,
        })
      : undefined;
  const logger = pino(
    {
      level: options.level,
      base: { service: 'reference-server' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: redactedPaths, censor: '[redacted]' },
    },
    options.destination ?? stdout,
  );
  if (stdout) {
    // pino silences EPIPE itself; any other write error would be re-emitted with no listener and
    // crash the process. Either way the destination is dropped: see disarm().
    stdout.on('error', () => disarm(stdout));
    stdoutDestinations.set(logger, stdout);
  }
  return logger;
}

/**
 * Writes what the logger still holds, waiting at most `timeoutMs`, then makes sure exiting cannot
 * block on it: pino flushes an asynchronous destination synchronously at exit, and sonic-boom's
 * synchronous flush retries forever on a pipe whose reader has gone (EPIPE) or stays full. That
 * made a stop hang for good; whatever is not written within the bound is dropped.
 */
export async function flushLogs(logger: Logger, timeoutMs: number): Promise<void> {
  const stdout = stdoutDestinations.get(logger);
  if (!stdout) {
    logger.flush();
    return;
  }
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    new Promise<void>((resolve) => {
      try {
        stdout.flush(() => resolve());
      } catch {
        resolve(); // already destroyed or disarmed
      }
    }),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    }),
  ]);
  clearTimeout(timer);
  disarm(stdout);
}

/** Turns a destination into a sink that writes nothing and never blocks, as pino does on EPIPE. */
function disarm(destination: StdoutDestination): void {
  const noop = () => {};
  Object.assign(destination, {
    write: () => true,
    flush: (done?: () => void) => done?.(),
    flushSync: noop,
    end: noop,
  });
}
