import pino, { type DestinationStream, type Level, type Logger } from 'pino';

/**
 * What the logger censors wherever it appears at these depths: credentials and the request
 * signature must never reach a log (DECISIONS.md "Authentication"). The server never logs headers
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
 * The server's structured JSON logger (pino): one JSON object per line on stdout, ISO times,
 * level names instead of numbers, and {@link redactedPaths} censored.
 */
export function createLogger(options: {
  level: Level | 'silent';
  destination?: DestinationStream;
}): Logger {
  return pino(
    {
      level: options.level,
      base: { service: 'reference-server' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: redactedPaths, censor: '[redacted]' },
    },
    options.destination ?? pino.destination(1),
  );
}
