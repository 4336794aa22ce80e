import type { Exchange } from '../http/exchange.js';
import type { Outcome } from './catalog.js';

/** The problem an answer carries, in one line (its detail and the fields it names). */
export function problemSummary(json: unknown, text: string): string {
  if (typeof json !== 'object' || json === null) return text.slice(0, 300);
  const problem = json as { title?: unknown; detail?: unknown; errors?: unknown };
  const errors = Array.isArray(problem.errors)
    ? problem.errors
        .map(
          (error: { path?: unknown; message?: unknown }) =>
            `${String(error.path)}: ${String(error.message)}`,
        )
        .join('; ')
    : '';
  return (
    [problem.detail ?? problem.title, errors].filter(Boolean).join(' — ').slice(0, 500) ||
    text.slice(0, 300)
  );
}

/**
 * `positive_data_acceptance`: a validly signed, valid request is accepted (2xx), or refused with a
 * 409 the run itself expected (the person was made to conflict). A 401 is a failure: the suite
 * signed it correctly, so a service that refuses it has a broken signature check, or the run has
 * the wrong keys, algorithm or encoding, and either way nothing else the run checks means much.
 */
export function positiveDataAcceptance(exchange: Exchange, conflictExpected = false): Outcome {
  const operation = exchange.operation.id;
  const check = 'positive_data_acceptance';
  const answer = exchange.answer;
  if (!answer)
    return {
      check,
      operation,
      ok: false,
      message: `no answer: ${exchange.error}`,
      expected: '2xx',
      actual: exchange.error ?? '',
    };
  const { status } = answer;
  if ((status >= 200 && status < 300) || (status === 409 && conflictExpected))
    return { check, operation, ok: true };
  const message =
    status === 401
      ? "a correctly signed request was refused with 401: the service verifies signatures differently (or the keys, --algorithm or --encoding are not the service's)"
      : `a valid request was refused with ${status}: ${problemSummary(answer.json, answer.text)}`;
  return {
    check,
    operation,
    ok: false,
    message,
    expected: conflictExpected ? '2xx or 409' : '2xx',
    actual: `${status} ${answer.text.slice(0, 300)}`,
  };
}
