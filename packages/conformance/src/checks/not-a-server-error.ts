import type { Exchange } from '../http/exchange.js';
import { documentedResponse } from '../spec/contract.js';
import type { Outcome } from './catalog.js';

/**
 * `not_a_server_error`: no 5xx, and no missing answer. A 5xx passes only when the spec documents
 * that very status for the operation and it is not 500: 500 is HTTP's "unexpected condition",
 * which the spec calls a bug of the service, while a documented 503 (`unavailable`, with
 * `Retry-After`) is the service saying its infrastructure is at fault. So the check is right both
 * before and after a spec documents a 503.
 */
export function notAServerError(exchange: Exchange): Outcome {
  const operation = exchange.operation.id;
  const check = 'not_a_server_error';
  if (!exchange.answer) {
    return {
      check,
      operation,
      ok: false,
      message: `no answer: ${exchange.error}`,
      expected: 'an answer',
      actual: exchange.error ?? 'none',
    };
  }
  const { status } = exchange.answer;
  if (status < 500) return { check, operation, ok: true };
  const documented = documentedResponse(exchange.operation, status);
  if (status !== 500 && documented?.status === String(status))
    return { check, operation, ok: true };
  return {
    check,
    operation,
    ok: false,
    message: `the service answered ${status}${status === 500 ? ' (a bug of the service, by the spec)' : ', which the spec does not document for this operation'}`,
    expected: 'no 5xx other than a documented 503',
    actual: `${status} ${exchange.answer.text.slice(0, 300)}`,
  };
}
