/**
 * A tool's arguments checked here, before anything is signed or sent: against the input schema
 * the tool advertised (so a client gets the refusal its schema implies), then, read as the
 * spec's (the strict profile's added nulls removed), against the spec itself with the one spec
 * toolkit (`@institution-api/runtime/spec-ajv`): each path parameter against its parameter's
 * schema (`updateUser`'s `id` is a UUID, so never `.`, `..` or a `/`: one path segment), and the
 * body against its schema and the account rules, phrased as the service phrases them in a `400`.
 * Each broken rule is a field error naming the argument (`/arguments/email`).
 *
 * @module
 */

import {
  createSpecSchemas,
  createUserInputErrors,
  fieldErrors,
} from '@institution-api/runtime/spec-ajv';
import type { FieldError, OpenApiDocument, UserInput } from '@institution-api/types';
import type { ValidateFunction } from 'ajv';
import type { OperationTool } from './tool-definitions.js';

/** The arguments taken apart, or the rules they break. */
export type CheckedArguments =
  | { path: Record<string, string>; body: UserInput; errors?: never }
  | { errors: FieldError[] };

/** Checks one tool's arguments; `args` is what the client sent (an object, or absent). */
export type ArgumentCheck = (
  tool: OperationTool,
  args: Record<string, unknown>,
) => CheckedArguments;

/**
 * The checks of `tools`' arguments, compiled once, at the first call: compiling the spec's
 * schemas is most of a start's CPU time (a `--cpu-prof` profile: Ajv's compiler, ~250 ms), and a
 * client waits for the server's first answer, not for its first call.
 */
export function argumentChecks(
  document: OpenApiDocument,
  tools: readonly OperationTool[],
): ArgumentCheck {
  let compiled: Map<string, Compiled> | undefined;
  const compile = () => {
    const schemas = createSpecSchemas(document);
    return new Map(
      tools.map(({ tool, pathParameters, bodySchema }) => [
        tool.name as string,
        {
          advertised: schemas.compile(tool.inputSchema as Record<string, unknown>),
          parameters: Object.entries(pathParameters).map(
            ([name, schema]) => [name, schemas.compile(schema)] as const,
          ),
          body:
            bodySchema === 'UserInput'
              ? createUserInputErrors(schemas)
              : bodySchema === undefined
                ? () => []
                : bodyErrors(schemas.validator(bodySchema), bodySchema),
        },
      ]),
    );
  };
  return (tool, args) => {
    compiled ??= compile();
    const checks = compiled.get(tool.tool.name);
    if (checks === undefined) throw new Error(`No tool ${tool.tool.name}.`);
    if (!checks.advertised(args)) {
      return { errors: fieldErrors(checks.advertised.errors ?? [], 'arguments', tool.tool.name) };
    }
    const spec = tool.asSpecArguments(args) as Record<string, unknown>;
    const errors: FieldError[] = [];
    const path: Record<string, string> = {};
    const body: Record<string, unknown> = { ...spec };
    for (const [name, validate] of checks.parameters) {
      const value = body[name];
      delete body[name];
      if (!validate(value)) {
        const at = fieldErrors(validate.errors ?? [], `arguments/${name}`, name);
        errors.push(
          ...at.map((error) => ({
            ...error,
            message: `${name} ${error.message.replace(/^the arguments\/\S+ /, '')}`,
          })),
        );
      } else if (typeof value === 'string') {
        path[name] = value;
      }
    }
    errors.push(
      ...checks.body(body).map((error) => ({
        ...error,
        path: error.path.replace(/^\/body/, '/arguments'),
      })),
    );
    return errors.length > 0 ? { errors } : { path, body: body as unknown as UserInput };
  };
}

/** One tool's compiled checks. */
interface Compiled {
  advertised: ValidateFunction;
  parameters: (readonly [string, ValidateFunction])[];
  body: (body: unknown) => FieldError[];
}

/** The field errors of a body schema other than `UserInput`, by Ajv's errors. */
function bodyErrors(validate: ValidateFunction, name: string): (body: unknown) => FieldError[] {
  return (body) => (validate(body) ? [] : fieldErrors(validate.errors ?? [], 'body', name));
}
