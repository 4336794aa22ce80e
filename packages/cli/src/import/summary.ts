/**
 * The summary an import prints at the end, on stdout (docs/import.md "The report"): rows per outcome,
 * earlier runs of the same journal included, then this run's rows, time and rate.
 *
 * @module
 */
import type { ImportOptions } from './options.js';
import { OUTCOMES, type Outcome } from './outcome.js';
import { formatDuration, number } from './progress.js';

/** The summary: rows per outcome (all runs of this journal), and this run's time and rate. */
export function summary(
  options: ImportOptions,
  total: number,
  counts: Map<Outcome, number>,
  run: { heading?: string; thisRun: number; seconds: number; pushBacks?: number },
): string {
  const dry: readonly Outcome[] = ['valid', 'invalid'];
  const shown = run.heading ? dry : OUTCOMES.filter((outcome) => outcome !== 'valid');
  const width = Math.max(...shown.map((o) => number(counts.get(o) ?? 0).length));
  const lines = [
    `institution-api import ${options.file}: ${number(total)} rows${run.heading ? ` (${run.heading})` : ''}`,
    ...shown.map((o) => `  ${o.padEnd(9)} ${number(counts.get(o) ?? 0).padStart(width)}`),
    `  this run: ${number(run.thisRun)} rows in ${formatDuration(run.seconds)}, ${number(
      run.seconds > 0 ? Math.round(run.thisRun / run.seconds) : 0,
    )} rows/s${run.pushBacks ? `; slowed down ${run.pushBacks === 1 ? 'once' : `${run.pushBacks} times`} by 429/503` : ''}`,
    `  report: ${options.report === '-' ? 'stdout' : options.report}`,
  ];
  return `${lines.join('\n')}\n`;
}
