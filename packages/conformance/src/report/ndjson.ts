import type { SignatureOptions } from '@institution-api/signing';
import type { RunReport } from '../run/run-conformance.js';
import { requestRecord } from './describe.js';
import { reproduction } from './reproduction.js';

/**
 * The run's results as NDJSON, one line per check and operation: `check`, `operation`, `ok`,
 * `evaluations`, and for a failure its `message`, `expected`, `actual`, the shrunk `requests`
 * (Authorization described, never its value), `requestsUntilCaught`, `shrinks`, the size of the
 * shrunk body in bytes, and the bash `reproduction`; for a skipped check, why.
 */
export function ndjsonLines(report: RunReport, signature: SignatureOptions): string {
  return report.results
    .map((result) => {
      const { failure } = result;
      const line = {
        check: result.check,
        operation: result.operation,
        ok: !failure,
        evaluations: result.evaluations,
        seed: report.seed,
        ...(result.skipped !== undefined ? { skipped: result.skipped } : {}),
        ...(failure
          ? {
              message: failure.outcome.message,
              expected: failure.outcome.expected,
              actual: failure.outcome.actual,
              label: failure.label,
              requests: failure.exchanges.map((exchange) => requestRecord(exchange, signature)),
              requestsUntilCaught: failure.requestsUntilCaught,
              shrinks: failure.shrinks,
              shrunkBodyBytes: failure.exchanges.reduce(
                (total, exchange) => total + (exchange.request.body?.length ?? 0),
                0,
              ),
              reproduction: reproduction(failure.exchanges, signature),
            }
          : {}),
      };
      return `${JSON.stringify(line)}\n`;
    })
    .join('');
}
