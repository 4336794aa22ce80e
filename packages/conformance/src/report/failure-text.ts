import type { SignatureOptions } from '@institution-api/signing';
import type { Failure } from '../run/results.js';
import { requestRecord } from './describe.js';
import { reproduction } from './reproduction.js';

const indent = (text: string, by = '    ') =>
  text
    .split('\n')
    .map((line) => (line ? by + line : line))
    .join('\n');

/**
 * One failure for a reader: the check and operation, what the spec expected and what came back,
 * the shrunk request (or sequence) as sent, and a bash reproduction that signs at replay time.
 */
export function failureText(failure: Failure, signature: SignatureOptions): string {
  const { outcome, exchanges, label, requestsUntilCaught, shrinks } = failure;
  const requests = exchanges.map((exchange) => {
    const record = requestRecord(exchange, signature);
    const headers = Object.entries(record.headers).map(([name, value]) => `${name}: ${value}`);
    return [
      `${record.method} ${record.target}`,
      ...headers,
      '',
      record.body,
      `→ ${record.status ?? exchange.error}`,
    ].join('\n');
  });
  return [
    `✖ ${outcome.check} · ${outcome.operation}`,
    `  ${outcome.message}`,
    ...(outcome.expected ? [`  expected: ${outcome.expected}`] : []),
    ...(outcome.actual ? [`  actual:   ${outcome.actual.replaceAll('\n', ' ')}`] : []),
    `  sent (${label ?? 'a request'}; shrunk in ${shrinks} step(s), first caught after ${requestsUntilCaught} requests):`,
    indent(requests.join('\n\n')),
    '  reproduce with bash, curl and openssl (reads the keys from the environment):',
    indent(reproduction(exchanges, signature)),
  ].join('\n');
}
