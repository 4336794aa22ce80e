import {
  contentOf,
  dereference,
  operationsOf,
  parametersOf,
  type SpecOperation,
} from '@institution-api/runtime/spec';
import { createSpecSchemas, type SpecSchemas } from '@institution-api/runtime/spec-ajv';
import type { OpenApiDocument } from '@institution-api/types';
import type { ValidateFunction } from 'ajv';
import { isObject, type JsonSchema } from './json-schema.js';

/** A path parameter of an operation (OAS 3.1 §4.8.12, `in: path`). */
export interface PathParameter {
  name: string;
  schema: JsonSchema;
}

/** One documented response of an operation (OAS 3.1 §4.8.17). */
export interface ResponseSpec {
  /** The key it is documented under: `200`, `4XX` or `default`. */
  status: string;
  /** Media type → its schema (undefined when the spec gives none). */
  content: Record<string, JsonSchema | undefined>;
  /** Lower-case header name → whether it is required, and its schema. */
  headers: Record<string, { required: boolean; schema?: JsonSchema }>;
}

/** One operation of the spec, read generically from its Path Item (OAS 3.1 §4.8.9). */
export interface Operation {
  /** `operationId`, or `METHOD /path` when the spec gives none. */
  id: string;
  method: string;
  /** The path template, `/api/v1/external/users/{id}`. */
  path: string;
  pathParameters: PathParameter[];
  /** The JSON request body, when the operation takes one. */
  body?: { required: boolean; mediaType: string; schema: JsonSchema };
  responses: ResponseSpec[];
  /** Whether a security requirement applies (the operation's, or the document's). */
  secured: boolean;
}

/** The spec as the suite and the proxy read it: its operations and the validators of its schemas. */
export interface Contract {
  document: OpenApiDocument;
  operations: Operation[];
  /** The shared Ajv set-up of `@institution-api/runtime/spec-ajv` over this document. */
  schemas: SpecSchemas;
  /** A compiled validator of any schema of the document, cached by identity. */
  validator(schema: JsonSchema): ValidateFunction;
}

/**
 * Reads every operation of `document`, through the spec toolkit (`operationsOf`, `parametersOf`:
 * an operation's parameter overrides its Path Item's of the same name and location). Parameters
 * other than path parameters and request bodies other than JSON are refused when required,
 * loudly: the suite could not send a valid request.
 */
export function readContract(document: OpenApiDocument): Contract {
  const schemas = createSpecSchemas(document);
  const compiled = new Map<JsonSchema, ValidateFunction>();
  const operations = operationsOf(document).map((operation) => readOperation(document, operation));
  return {
    document,
    operations,
    schemas,
    validator(schema) {
      let validate = compiled.get(schema);
      if (!validate) {
        validate = schemas.compile(schema);
        compiled.set(schema, validate);
      }
      return validate;
    },
  };
}

function readOperation(document: OpenApiDocument, specOperation: SpecOperation): Operation {
  const { method, path, operation: raw } = specOperation;
  const id = specOperation.id ?? `${method.toUpperCase()} ${path}`;
  const pathParameters: PathParameter[] = [];
  for (const parameter of parametersOf(document, specOperation)) {
    if (parameter.in === 'path') {
      pathParameters.push({
        name: String(parameter.name),
        schema: isObject(parameter.schema) ? parameter.schema : {},
      });
    } else if (parameter.required === true) {
      throw new Error(
        `${id}: the required ${String(parameter.in)} parameter ${String(parameter.name)} is not supported (path parameters only).`,
      );
    }
  }
  const body = readBody(document, id, raw.requestBody);
  const security = Array.isArray(raw.security) ? raw.security : document.security;
  return {
    id,
    method: method.toUpperCase(),
    path,
    pathParameters,
    ...(body ? { body } : {}),
    responses: Object.entries(isObject(raw.responses) ? raw.responses : {}).map(([status, value]) =>
      readResponse(document, status, value),
    ),
    secured:
      Array.isArray(security) &&
      security.some((entry) => isObject(entry) && Object.keys(entry).length > 0),
  };
}

function readBody(document: OpenApiDocument, id: string, raw: unknown): Operation['body'] {
  if (raw === undefined) return undefined;
  const body = dereference<Record<string, unknown>>(document, raw);
  const content = contentOf(document, body);
  const mediaType = Object.keys(content).find(isJsonMediaType);
  if (!mediaType) {
    if (body.required === true) {
      throw new Error(`${id}: only JSON request bodies are supported.`);
    }
    return undefined;
  }
  const media = content[mediaType];
  const schema = isObject(media) && isObject(media.schema) ? media.schema : {};
  return { required: body.required === true, mediaType, schema };
}

function readResponse(document: OpenApiDocument, status: string, raw: unknown): ResponseSpec {
  const response = dereference<Record<string, unknown>>(document, raw);
  const content: ResponseSpec['content'] = {};
  for (const [mediaType, media] of Object.entries(contentOf(document, response))) {
    content[mediaType.toLowerCase()] = isObject(media.schema) ? media.schema : undefined;
  }
  const headers: ResponseSpec['headers'] = {};
  for (const [name, value] of Object.entries(isObject(response.headers) ? response.headers : {})) {
    const header = dereference<Record<string, unknown>>(document, value);
    headers[name.toLowerCase()] = {
      required: header.required === true,
      ...(isObject(header.schema) ? { schema: header.schema } : {}),
    };
  }
  return { status, content, headers };
}

/** `application/json`, or any `+json` media type (RFC 6839), `application/problem+json` included. */
export function isJsonMediaType(mediaType: string): boolean {
  return /^application\/(?:[\w.-]+\+)?json$/i.test(mediaType.split(';')[0]?.trim() ?? '');
}

/**
 * The response an operation documents for `status`: the exact code, else its range (`4XX`), else
 * `default` (OAS 3.1 §4.8.16, "Responses Object").
 */
export function documentedResponse(operation: Operation, status: number): ResponseSpec | undefined {
  const exact = String(status);
  const range = `${exact[0]}XX`;
  return (
    operation.responses.find((response) => response.status === exact) ??
    operation.responses.find((response) => response.status.toUpperCase() === range) ??
    operation.responses.find((response) => response.status === 'default')
  );
}

/** The operation whose method and path template match a request, with its path parameters. */
export function matchOperation(
  operations: Operation[],
  method: string,
  pathname: string,
): { operation: Operation; parameters: Record<string, string> } | undefined {
  for (const operation of operations) {
    if (operation.method !== method.toUpperCase()) continue;
    const names: string[] = [];
    const pattern = operation.path
      .split(/(\{[^}]+\})/)
      .map((part) => {
        const name = /^\{([^}]+)\}$/.exec(part)?.[1];
        if (name === undefined) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        names.push(name);
        return '([^/]+)';
      })
      .join('');
    const match = new RegExp(`^${pattern}$`).exec(pathname);
    if (!match) continue;
    const parameters: Record<string, string> = {};
    names.forEach((name, index) => {
      parameters[name] = safeDecode(match[index + 1] ?? '');
    });
    return { operation, parameters };
  }
  return undefined;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
