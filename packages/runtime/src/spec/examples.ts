/**
 * The examples of an operation: the named examples of its request body and of its answers, each
 * `$ref` followed to its value (OAS 3.1 "Example Object", "Media Type Object").
 *
 * @module
 */
import { componentName, dereference, isObject, type JsonObject } from './local-ref.js';
import { operationById } from './operations.js';

/** One named example of a media type. */
export interface NamedExample {
  /** Its name in the media type's `examples`. */
  name: string;
  /** The name of the component it refers to (`#/components/examples/<component>`), if it does. */
  component?: string;
  summary?: string;
  value: unknown;
}

/**
 * The named examples of a Media Type Object (`content['application/json']`), in its order, each
 * with its value; the media type's single `example`, when it has only that, as one named
 * `example`.
 */
export function mediaExamples(document: unknown, media: unknown): NamedExample[] {
  if (!isObject(media)) return [];
  if (!isObject(media.examples)) {
    return 'example' in media ? [{ name: 'example', value: media.example }] : [];
  }
  return Object.entries(media.examples).flatMap(([name, raw]) => {
    const example = dereference(document, raw);
    if (!isObject(example)) return [];
    const component = componentName(raw, 'examples');
    return [
      {
        name,
        ...(component === undefined ? {} : { component }),
        ...(typeof example.summary === 'string' ? { summary: example.summary } : {}),
        value: example.value,
      },
    ];
  });
}

/** The Media Type Objects of a request body or a response (`$ref` followed), by media type. */
export function contentOf(document: unknown, bodyOrResponse: unknown): Record<string, JsonObject> {
  const resolved = dereference(document, bodyOrResponse);
  const content = isObject(resolved) && isObject(resolved.content) ? resolved.content : {};
  return Object.fromEntries(
    Object.entries(content).filter(([, media]) => isObject(media)),
  ) as Record<string, JsonObject>;
}

/** The named examples of the request body of `operationId` in `mediaType`. */
export function requestExamples(
  document: unknown,
  operationId: string,
  mediaType = 'application/json',
): NamedExample[] {
  const { operation } = operationById(document, operationId);
  return mediaExamples(document, contentOf(document, operation.requestBody)[mediaType]);
}

/**
 * The named examples of the answer `status` of `operationId`, in its first (or only) media type;
 * none when the answer is not documented or has no body.
 */
export function responseExamples(
  document: unknown,
  operationId: string,
  status: number | string,
): NamedExample[] {
  const { operation } = operationById(document, operationId);
  const responses = isObject(operation.responses) ? operation.responses : {};
  const [media] = Object.values(contentOf(document, responses[String(status)]));
  return mediaExamples(document, media);
}
