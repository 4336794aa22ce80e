/**
 * Forcing an answer in a sandbox (spec: "Assumptions", "Sandbox: forcing an answer", and the
 * `Prefer` header parameter of each operation): `Prefer: code=409` asks a sandbox to answer that
 * documented status of the operation with its example body and headers, the convention of
 * Stoplight Prism. `example=<name>` picks one of several examples. Shared by the mock, which
 * always honours it, and the reference server, which honours it in its sandbox mode only.
 *
 * @module
 */
import type { FieldError, OpenApiDocument } from '@institution-api/types';
import { contentOf, dereference, isObject, mediaExamples, operationById } from '../spec/index.js';

/** What a `Prefer` header asks of a sandbox (RFC 7240 preferences `code` and `example`). */
export interface SandboxPreference {
  /** The status to answer with. */
  code?: number;
  /** The name of the example to answer with, when the status documents several. */
  example?: string;
}

/** A documented answer, ready to send. */
export interface ForcedAnswer {
  status: number;
  /** The media type of the body (`application/json`, `application/problem+json`), if any. */
  contentType?: string;
  /** The example's value, if the response documents one. */
  body?: unknown;
  /** The documented headers that have an example, by their name in the spec. */
  headers: Record<string, string>;
}

/**
 * The `code` and `example` preferences of a `Prefer` header (RFC 7240: comma-separated
 * `token[=value]`, each with optional `;` parameters, values optionally quoted); other
 * preferences are ignored, as RFC 7240 asks. A `code` that is not three digits is kept as NaN, so
 * the caller can refuse it by name.
 */
export function parsePrefer(header: string | null | undefined): SandboxPreference {
  const preference: SandboxPreference = {};
  if (!header) return preference;
  for (const item of header.split(',')) {
    const [token = ''] = item.split(';', 1);
    const equals = token.indexOf('=');
    if (equals < 0) continue;
    const name = token.slice(0, equals).trim().toLowerCase();
    const value = token
      .slice(equals + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1');
    if (name === 'code') preference.code = /^\d{3}$/.test(value) ? Number(value) : Number.NaN;
    if (name === 'example') preference.example = value;
  }
  return preference;
}

/** The value of a documented header's example (`example`, or the first of `examples`). */
function headerExample(document: OpenApiDocument, header: unknown): string | undefined {
  const resolved = dereference(document, header);
  if (!isObject(resolved)) return undefined;
  const schema = dereference(document, resolved.schema);
  const [first] = mediaExamples(document, { examples: resolved.examples });
  const value = resolved.example ?? first?.value ?? (isObject(schema) ? schema.example : undefined);
  return value === undefined ? undefined : String(value);
}

/**
 * The answer `preference` forces on the operation `operationId`: the documented status, the body
 * of its example (the one named by `example`, or the first), and the documented headers that have
 * an example (`Retry-After`, `RateLimit`…), except CORS fields, which only a cross-origin
 * request gets. Undefined when the preference asks for no code; a field error on the `Prefer`
 * header when the code is not one the operation documents, or the example is not one of its.
 */
export function forcedAnswer(
  document: OpenApiDocument,
  operationId: string,
  preference: SandboxPreference,
): ForcedAnswer | { error: FieldError } | undefined {
  if (preference.code === undefined) return undefined;
  const { operation } = operationById(document, operationId);
  const responses = isObject(operation.responses) ? operation.responses : {};
  const documented = Object.keys(responses).filter((status) => /^\d{3}$/.test(status));
  const response = dereference(document, responses[String(preference.code)]);
  if (Number.isNaN(preference.code) || !isObject(response)) {
    return {
      error: {
        path: '/headers/prefer',
        message: `prefer asks for a code ${operationId} does not document; it documents ${documented.join(', ')}`,
      },
    };
  }
  const headers: Record<string, string> = {};
  for (const [name, header] of Object.entries(isObject(response.headers) ? response.headers : {})) {
    if (name.toLowerCase().startsWith('access-control-')) continue;
    const value = headerExample(document, header);
    if (value !== undefined) headers[name] = value;
  }
  const [contentType, media] = Object.entries(contentOf(document, response))[0] ?? [];
  if (contentType === undefined || media === undefined) return { status: preference.code, headers };
  const examples = isObject(media.examples) ? mediaExamples(document, media) : [];
  const names = examples.map((example) => example.name);
  if (preference.example !== undefined && !names.includes(preference.example)) {
    return {
      error: {
        path: '/headers/prefer',
        message: `prefer asks for an example the ${preference.code} answer of ${operationId} does not have; it has ${names.join(', ') || 'none'}`,
      },
    };
  }
  const chosen = examples.find((example) => example.name === (preference.example ?? names[0]));
  const body = chosen ? chosen.value : media.example;
  return { status: preference.code, contentType, headers, ...(body === undefined ? {} : { body }) };
}
