import type { Exchange } from '../http/exchange.js';
import { documentedResponse } from '../spec/contract.js';
import type { Outcome } from './catalog.js';

/** The media type of a Content-Type value, lower case, without its parameters. */
export function mediaTypeOf(contentType: string | undefined): string | undefined {
  return contentType?.split(';')[0]?.trim().toLowerCase() || undefined;
}

/** The documented media type (`application/json`, `application/*`, `*\/*`) that `actual` is. */
export function matchingMediaType(documented: string[], actual: string): string | undefined {
  return (
    documented.find((type) => type === actual) ??
    documented.find((type) => type.endsWith('/*') && actual.startsWith(type.slice(0, -1))) ??
    documented.find((type) => type === '*/*')
  );
}

/**
 * `content_type_conformance`: the answer's Content-Type is a media type the spec documents for
 * the operation and status. Statuses documented without content are not judged here.
 */
export function contentTypeConformance(exchange: Exchange): Outcome | undefined {
  const { answer, operation } = exchange;
  if (!answer) return undefined;
  const documented = documentedResponse(operation, answer.status);
  const types = Object.keys(documented?.content ?? {});
  if (types.length === 0) return undefined;
  const check = 'content_type_conformance';
  const actual = mediaTypeOf(answer.headers['content-type']);
  if (actual && matchingMediaType(types, actual))
    return { check, operation: operation.id, ok: true };
  return {
    check,
    operation: operation.id,
    ok: false,
    message: `a ${answer.status} of ${operation.id} came as ${actual ?? 'no Content-Type at all'}`,
    expected: types.join(' or '),
    actual: answer.headers['content-type'] ?? 'no Content-Type',
  };
}
