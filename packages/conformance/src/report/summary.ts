import { CHECKS, type CheckId } from '../checks/catalog.js';
import type { RunReport } from '../run/run-conformance.js';

/** A table of every check by operation (✔ evaluations, ✖ failed, – skipped) and the run's figures. */
export function summaryText(report: RunReport): string {
  const operations = [...new Set(report.results.map((result) => result.operation))].sort();
  const checks = (Object.keys(CHECKS) as CheckId[]).filter((check) =>
    report.results.some((result) => result.check === check),
  );
  const cell = (check: CheckId, operation: string) => {
    const result = report.results.find(
      (candidate) => candidate.check === check && candidate.operation === operation,
    );
    if (!result) return '';
    if (result.failure) return '✖ failed';
    if (result.skipped !== undefined) return '– skipped';
    return `✔ ${result.evaluations}`;
  };
  const rows = [
    ['check', ...operations],
    ...checks.map((check) => [check, ...operations.map((operation) => cell(check, operation))]),
  ];
  const widths =
    rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  const lines = rows.map((row) =>
    row
      .map((text, column) => text.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd(),
  );
  lines.splice(1, 0, widths.map((width) => '-'.repeat(width)).join('  '));
  const failed = report.results.filter((result) => result.failure).length;
  const seconds = report.durationMs / 1000;
  const skipped = report.results.filter((result) => result.skipped !== undefined);
  return [
    ...lines,
    '',
    ...skipped.map((result) => `– ${result.check} · ${result.operation}: ${result.skipped}`),
    ...(report.stopped ? [`The run stopped early: ${report.stopped}.`] : []),
    `${failed === 0 ? '✔ no check failed' : `✖ ${failed} check(s) failed`}: ${report.requests} requests in ${seconds.toFixed(1)} s (${(report.requests / Math.max(seconds, 0.001)).toFixed(0)} per second) to ${report.baseUrl}; seed ${report.seed} (replay with --seed ${report.seed}).`,
  ].join('\n');
}
