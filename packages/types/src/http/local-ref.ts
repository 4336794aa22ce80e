import type { OpenApiDocument } from '../openapi-document.js';

type Json = Record<string, unknown>;

/** Whether `value` is a JSON object (not an array, not null). */
export const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A local `$ref` of the document, followed until it is not one. */
export function resolve(document: OpenApiDocument, value: unknown): unknown {
  let current = value;
  for (let hops = 0; isObject(current) && typeof current.$ref === 'string' && hops < 16; hops++) {
    const ref = current.$ref as string;
    if (!ref.startsWith('#/')) break;
    current = ref
      .slice(2)
      .split('/')
      .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce<unknown>((node, segment) => (isObject(node) ? node[segment] : undefined), document);
  }
  return current;
}
