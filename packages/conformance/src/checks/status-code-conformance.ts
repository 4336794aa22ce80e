import type { Exchange } from '../http/exchange.js';
import { documentedResponse } from '../spec/contract.js';
import type { Outcome } from './catalog.js';

/** `status_code_conformance`: the status is documented for the operation (exactly, by range or `default`). */
export function statusCodeConformance(exchange: Exchange): Outcome | undefined {
  if (!exchange.answer) return undefined;
  const { operation } = exchange;
  const { status } = exchange.answer;
  const check = 'status_code_conformance';
  if (documentedResponse(operation, status)) return { check, operation: operation.id, ok: true };
  return {
    check,
    operation: operation.id,
    ok: false,
    message: `${status} is not a status the spec documents for ${operation.id}`,
    expected: `one of ${operation.responses.map((response) => response.status).join(', ')}`,
    actual: String(status),
  };
}
