/**
 * The tools of `institution-api mcp`, one per operation of the spec, derived from the bundled
 * document alone (a pure function of it), so that a field the spec adds appears in the tools'
 * schemas with no code change:
 *
 * - name: the operation's `operationId`; title: its `summary`; description: its `description`,
 *   with what the tool adds (signing, the one answer shape, problems as tool errors);
 * - input schema: the request body's schema (`UserInput`) as self-contained JSON Schema, every
 *   field with its constraints and `required`, and the path parameters (`updateUser`'s `id`)
 *   beside the fields; or, with `strictSchemas`, its strict profile (strict-schema.ts);
 * - output schema: the status, what it means (the response's description) and the user as the
 *   client's `normalizeUser` gives it: the update answer's keys, each present, with `documents`
 *   and the payout account in one camelCase shape (spec: "The two response shapes").
 *
 * @module
 */

import {
  componentName,
  contentOf,
  dereference,
  type JsonObject,
  operationById,
  parametersOf,
  type SpecOperation,
  toJsonSchema,
} from '@institution-api/runtime/spec';
import { canonicalKeys, deriveUserDetailsModel } from '@institution-api/runtime/user-details';
import type { OpenApiDocument } from '@institution-api/types';
import type { Tool, ToolAnnotations } from '@modelcontextprotocol/server';
import { strictProfile } from './strict-schema.js';

type Schema = Record<string, unknown>;

/**
 * What a call of each operation does to the service's state, which the spec says in words:
 * `createUser` creates or adds (spec: `createUser`), never changing a stored user, and the same
 * call again answers `200` with no further effect; `updateUser` replaces every detail (an
 * optional field left out is cleared), and the same call again changes nothing more.
 */
export const operationAnnotations = {
  createUser: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: true,
  },
  updateUser: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: true,
    openWorldHint: true,
  },
} as const satisfies Record<string, ToolAnnotations>;

/** The operations the MCP server offers, by `operationId`. */
export type ToolName = keyof typeof operationAnnotations;

/** One tool and the operation it calls. */
export interface OperationTool {
  /** As `tools/list` lists it; its schemas are JSON Schema read from the spec. */
  tool: Omit<Tool, 'inputSchema' | 'outputSchema'> & {
    name: ToolName;
    inputSchema: Schema & { type: 'object' };
    outputSchema: Schema & { type: 'object' };
  };
  /** `POST`, `PUT`. */
  method: string;
  /** The operation's path template (`/api/v1/external/users/{id}`). */
  path: string;
  /** The arguments that go into the path, not the body, each with the spec's schema. */
  pathParameters: Readonly<Record<string, Schema>>;
  /** The request body's component schema (`UserInput`), whose rules the arguments must keep. */
  bodySchema: string | undefined;
  /** The arguments as the spec reads them (the strict profile's added nulls removed). */
  asSpecArguments(args: unknown): unknown;
  /** The description of each success status, from the operation's responses. */
  answers: Readonly<Record<number, string>>;
}

/** What every tool's description adds to the operation's. */
const toolNote = `

As a tool: pass the request body's fields as arguments (and the path's parameters beside them).
The MCP server signs the request with the institution's keys it was started with and sends it to
the service it was configured for. The result is the HTTP status, what it means, and the user in
one camelCase shape (structuredContent.user), whichever of the two answer shapes the service
used. A problem the service answers comes back as a tool error with its status, title, detail and
"errors" (each field and rule broken), so the arguments can be corrected and the call made again.`;

/** How the tools' input schemas are written. */
export interface ToolOptions {
  /** The strict profile (strict-schema.ts) instead of the spec's schemas as they are. */
  strictSchemas?: boolean;
}

/**
 * The tools of `document`, one per operation of {@link operationAnnotations}, in that order.
 * Throws when the document lacks one of them or has no JSON request body for it.
 */
export function deriveOperationTools(
  document: OpenApiDocument,
  options: ToolOptions = {},
): OperationTool[] {
  const userSchema = normalizedUserSchema(document);
  return (Object.keys(operationAnnotations) as ToolName[]).map((name) => {
    const found = operationById(document, name);
    const { method, path, operation } = found;
    const parameters = pathParameters(document, found);
    const bodySchema = contentOf(document, operation.requestBody)['application/json']?.schema;
    if (bodySchema === undefined) throw new Error(`${name} has no JSON request body.`);
    const body = toJsonSchema(document, bodySchema);
    const answers = successAnswers(document, operation);
    const input = inputSchema(body, parameters);
    const strict = options.strictSchemas ? strictProfile(input) : undefined;
    return {
      tool: {
        name,
        title: String(operation.summary ?? name),
        description: `${withoutPageLinks(String(operation.description ?? '')).trim()}${toolNote}`,
        inputSchema: (strict?.schema ?? input) as Schema & { type: 'object' },
        outputSchema: {
          type: 'object',
          additionalProperties: false,
          required: ['status', 'message', 'user'],
          properties: {
            status: {
              type: 'integer',
              enum: Object.keys(answers).map(Number),
              description: 'The HTTP status the service answered.',
            },
            message: { type: 'string', description: "What the status means (the spec's words)." },
            user: userSchema,
          },
        },
        annotations: { title: String(operation.summary ?? name), ...operationAnnotations[name] },
      },
      method: method.toUpperCase(),
      path,
      pathParameters: parameters,
      bodySchema: componentName(bodySchema, 'schemas'),
      asSpecArguments: strict?.asSpecArguments ?? ((args) => args),
      answers,
    };
  });
}

/** The path parameters of the operation (its path item's and its own), each with its schema. */
function pathParameters(
  document: OpenApiDocument,
  operation: SpecOperation,
): Record<string, Schema> {
  const parameters: Record<string, Schema> = {};
  for (const parameter of parametersOf(document, operation)) {
    if (parameter.in !== 'path' || typeof parameter.name !== 'string') continue;
    parameters[parameter.name] = {
      ...toJsonSchema(document, parameter.schema ?? {}),
      ...(typeof parameter.description === 'string' && { description: parameter.description }),
    };
  }
  return parameters;
}

/**
 * The tool's input: the body's schema with the path parameters beside its fields. A combinator
 * at the root (`UserInput`'s `oneOf` of account variants) is left out of the schema and said in
 * its description instead: the model APIs agents run on refuse a tool whose input schema has
 * `oneOf`, `anyOf` or `allOf` at the top level (Anthropic's "input_schema does not support
 * oneOf, allOf, or anyOf at the top level"; OpenAI's and Bedrock's alike), and the service
 * checks the rule, naming the field, all the same.
 */
function inputSchema(
  body: Schema,
  parameters: Record<string, Schema>,
): Schema & { type: 'object' } {
  const { oneOf, anyOf, allOf, properties = {}, required = [], description, ...rest } = body;
  for (const name of Object.keys(parameters)) {
    if (name in (properties as Schema)) {
      throw new Error(`The path parameter ${name} is also a field of the body.`);
    }
  }
  if (allOf !== undefined)
    throw new Error('A request body with allOf at its root is not supported.');
  const alternatives = [oneOf, anyOf].filter(Array.isArray) as Schema[][];
  const rules = alternatives.map((branches) => alternativesInWords(branches, oneOf === branches));
  return {
    ...rest,
    type: 'object',
    ...(description !== undefined || rules.length > 0
      ? {
          description: [description, ...rules]
            .filter(Boolean)
            .map((text) => String(text).trim())
            .join('\n\n'),
        }
      : {}),
    properties: { ...parameters, ...(properties as Record<string, Schema>) },
    required: [...Object.keys(parameters), ...(required as string[])],
  };
}

/** The alternatives of a root `oneOf`/`anyOf`, one line each: title, requirements, fixed values. */
function alternativesInWords(branches: Schema[], exactlyOne: boolean): string {
  const lines = branches.map((branch, index) => {
    const properties = (branch.properties ?? {}) as Record<string, Schema>;
    const fixed = Object.entries(properties)
      .filter(([, schema]) => 'const' in schema)
      .map(([name, schema]) => `${name} ${JSON.stringify(schema.const)}`);
    const absent = Object.entries(properties)
      .filter(([, schema]) => schema.type === 'null')
      .map(([name]) => name);
    const required = (branch.required ?? []) as string[];
    const parts = [
      ...fixed,
      ...(required.length > 0 ? [`requires ${required.join(', ')}`] : []),
      ...(absent.length > 0 ? [`${absent.join(', ')} null or left out`] : []),
    ];
    return `- ${String(branch.title ?? `variant ${index + 1}`)}: ${parts.join('; ')}.`;
  });
  return `${exactlyOne ? 'Exactly one' : 'At least one'} of these holds (the service checks it and names the field otherwise):\n${lines.join('\n')}`;
}

/** Each `2xx` status of the operation with its response's description. */
function successAnswers(document: OpenApiDocument, operation: JsonObject): Record<number, string> {
  const answers: Record<number, string> = {};
  for (const [status, response] of Object.entries((operation.responses ?? {}) as Schema)) {
    if (!/^2\d\d$/.test(status)) continue;
    answers[Number(status)] = String(dereference<Schema>(document, response).description ?? '');
  }
  if (Object.keys(answers).length === 0) throw new Error('An operation without a 2xx answer.');
  return answers;
}

/**
 * The JSON Schema of the user as the client's `normalizeUser` gives it, from the spec's answer
 * schemas: each key of the update answer (`UserUpdated`) and those only the create answer
 * (`UserCreated`) has, every one present; a key one answer may lack reads as null (a list as
 * `[]`), so its schema admits null; the account in the update answer's shape with every key
 * present, null when that answer may leave it out (`bankName` for MOMO).
 */
export function normalizedUserSchema(document: OpenApiDocument): Schema {
  const model = deriveUserDetailsModel(document);
  const shapes = (['UserUpdated', 'UserCreated'] as const).map((name) => {
    const schema = toJsonSchema(document, { $ref: `#/components/schemas/${name}` });
    return {
      name,
      properties: (schema.properties ?? {}) as Record<string, Schema>,
      required: new Set((schema.required ?? []) as string[]),
    };
  });
  const properties: Record<string, Schema> = {};
  for (const key of canonicalKeys(model)) {
    const found = shapes.map((shape) => {
      const spelling = key.spellings.find((name) => name in shape.properties);
      return spelling === undefined
        ? undefined
        : { schema: shape.properties[spelling] as Schema, required: shape.required.has(spelling) };
    });
    const first = found.find((entry) => entry !== undefined);
    if (first === undefined) continue;
    const missingFrom = shapes
      .filter((_, index) => !found[index]?.required)
      .map(({ name }) => name);
    let schema = key.name === 'account' ? everyKeyPresent(first.schema) : first.schema;
    const absentValue = key.field?.absent?.value;
    if (
      missingFrom.length > 0 &&
      !key.list &&
      (absentValue === undefined || absentValue === null)
    ) {
      schema = orNull(schema);
      const note = `Null when the answer is ${missingFrom.join(' or ')}, which does not carry it.`;
      schema = { ...schema, description: [schema.description, note].filter(Boolean).join(' ') };
    }
    properties[key.name] = schema;
  }
  return {
    type: 'object',
    description:
      "The user in one camelCase shape, whichever answer shape the service used (the client's normalizeUser).",
    additionalProperties: false,
    required: Object.keys(properties),
    properties,
  };
}

/** An object schema (or one of its `anyOf` branches) with each key present, null where optional. */
function everyKeyPresent(schema: Schema): Schema {
  if (Array.isArray(schema.anyOf)) {
    return { ...schema, anyOf: (schema.anyOf as Schema[]).map(everyKeyPresent) };
  }
  if (schema.type !== 'object' || typeof schema.properties !== 'object') return schema;
  const properties = schema.properties as Record<string, Schema>;
  const required = new Set((schema.required ?? []) as string[]);
  return {
    ...schema,
    required: Object.keys(properties),
    properties: Object.fromEntries(
      Object.entries(properties).map(([name, property]) => [
        name,
        required.has(name) ? property : orNull(property),
      ]),
    ),
  };
}

/** `schema`, admitting null as well. */
function orNull(schema: Schema): Schema {
  const types = ([] as unknown[]).concat(schema.type ?? []);
  if (types.includes('null')) return schema;
  if (Array.isArray(schema.anyOf)) {
    const branches = schema.anyOf as Schema[];
    return branches.some((branch) => branch.type === 'null')
      ? schema
      : { ...schema, anyOf: [...branches, { type: 'null' }] };
  }
  if (types.length > 0 && !('enum' in schema) && !('const' in schema)) {
    return { ...schema, type: [...types, 'null'] };
  }
  const { description, ...rest } = schema;
  return {
    ...(description !== undefined && { description }),
    anyOf: [rest, { type: 'null' }],
  };
}

/**
 * Markdown links to the docs page's own anchors (`[Updating details](#/section/journeys/…)`),
 * which lead nowhere outside that page, as their text alone.
 */
function withoutPageLinks(markdown: string): string {
  return markdown.replace(/\[([^\]]*)\]\(#[^)]*\)/g, '$1');
}
