import type { Exchange } from '../http/exchange.js';
import { type Contract, documentedResponse } from '../spec/contract.js';
import type { JsonSchema } from '../spec/json-schema.js';
import type { Outcome } from './catalog.js';
import { describeErrors } from './response-schema-conformance.js';

/** A header's text as the JSON value its schema describes (OAS 3.1 `style: simple`). */
function headerValue(text: string, schema: JsonSchema): unknown {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (
    (types.includes('integer') || types.includes('number')) &&
    /^-?\d+(\.\d+)?$/.test(text.trim())
  ) {
    return Number(text.trim());
  }
  if (types.includes('boolean') && /^(true|false)$/.test(text.trim()))
    return text.trim() === 'true';
  return text;
}

/**
 * `response_headers_conformance`: every header the spec documents for the status is present when
 * `required`, and valid against its schema when present (`Retry-After: 30`, an integer >= 0).
 */
export function responseHeadersConformance(
  contract: Contract,
  exchange: Exchange,
): Outcome | undefined {
  const { answer, operation } = exchange;
  if (!answer) return undefined;
  const documented = documentedResponse(operation, answer.status);
  const headers = Object.entries(documented?.headers ?? {}).filter(
    ([name]) => name !== 'content-type',
  );
  if (headers.length === 0) return undefined;
  const check = 'response_headers_conformance';
  const problems: string[] = [];
  for (const [name, { required, schema }] of headers) {
    const text = answer.headers[name];
    if (text === undefined) {
      if (required) problems.push(`${name} is missing`);
      continue;
    }
    if (!schema) continue;
    const validate = contract.validator(schema);
    if (!validate(headerValue(text, schema)))
      problems.push(`${name}: ${JSON.stringify(text)} ${describeErrors(validate.errors)}`);
  }
  if (problems.length === 0) return { check, operation: operation.id, ok: true };
  return {
    check,
    operation: operation.id,
    ok: false,
    message: `the ${answer.status} answer's headers break the spec: ${problems.join('; ')}`,
    expected: headers
      .map(([name, { required }]) => `${name}${required ? ' (required)' : ''}`)
      .join(', '),
    actual: JSON.stringify(answer.headers),
  };
}
