import type { Exchange } from '../http/exchange.js';
import type { Outcome } from './catalog.js';

/**
 * `byte_exactness`, first half: a body that means the same as another but is spelled differently
 * (whitespace, key order, `\u` escapes), signed over its own bytes, is accepted (2xx): the
 * signature covers the bytes sent, and any JSON spelling is a valid request.
 */
export function acceptedAsSent(exchange: Exchange, spelling: string): Outcome {
  const operation = exchange.operation.id;
  const status = exchange.answer?.status;
  if (status !== undefined && status >= 200 && status < 300)
    return { check: 'byte_exactness', operation, ok: true };
  return {
    check: 'byte_exactness',
    operation,
    ok: false,
    message: `a valid body spelled with ${spelling}, signed over its own bytes, was answered ${status ?? exchange.error}${status === 401 ? ': the service does not verify the bytes it received' : ''}`,
    expected: '2xx',
    actual: `${status ?? exchange.error} ${exchange.answer?.text.slice(0, 300) ?? ''}`,
  };
}

/**
 * `byte_exactness`, second half: the same body sent with a signature over its re-serialized form
 * (`JSON.stringify(JSON.parse(body))`) is refused with 401. A service that accepts it verifies a
 * re-serialization, not the bytes it received, and two clients that serialize differently would
 * see different answers.
 */
export function refusedReserialized(exchange: Exchange): Outcome {
  const operation = exchange.operation.id;
  const status = exchange.answer?.status;
  if (status === 401) return { check: 'byte_exactness', operation, ok: true };
  return {
    check: 'byte_exactness',
    operation,
    ok: false,
    message: `a body signed over its re-serialized form, not over the bytes sent, was answered ${status ?? exchange.error}: the service verifies a re-serialization`,
    expected: '401',
    actual: `${status ?? exchange.error} ${exchange.answer?.text.slice(0, 300) ?? ''}`,
  };
}
