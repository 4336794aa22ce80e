/**
 * The service stores the details it is sent and answers them (Assumptions, "Details follow the
 * spec"): a field of `UserInput` that no answer carries would be stored and never seen again,
 * which is what adding a field to `UserInput` alone does. Each field must be a key of an answer,
 * under its name or through the answer's `x-input-field`, or one of the account's fields (the
 * answers' `account` object).
 */
import { describe, expect, it } from 'vitest';
import { spec } from './spec.js';

type Schema = { properties?: Record<string, Schema>; oneOf?: Schema[]; $ref?: string } & Record<
  string,
  unknown
>;
const schemas = spec.components.schemas as Record<string, Schema>;
const resolve = (schema: Schema): Schema =>
  schema.$ref ? resolve(schemas[schema.$ref.split('/').pop() ?? ''] ?? {}) : schema;

/** The request fields an answer schema carries: its keys, renamed ones by their x-input-field. */
function carried(answer: string): Set<string> {
  const properties = resolve(schemas[answer] ?? {}).properties ?? {};
  return new Set(
    Object.entries(properties).map(([key, property]) =>
      typeof property['x-input-field'] === 'string' ? property['x-input-field'] : key,
    ),
  );
}

describe('the answers carry the request', () => {
  const input = resolve(schemas.UserInput ?? {});
  const account = new Set(
    (input.oneOf ?? []).flatMap((variant) => Object.keys(resolve(variant).properties ?? {})),
  );
  const answered = new Set([...carried('UserCreated'), ...carried('UserUpdated')]);

  it('every field of UserInput is a key of an answer, or an account field', () => {
    const unanswered = Object.keys(input.properties ?? {}).filter(
      (field) => !account.has(field) && !answered.has(field),
    );
    expect(
      unanswered,
      'fields of UserInput that no answer carries: add each to UserCreated and UserUpdated (openapi/README.md, "Adding a field")',
    ).toEqual([]);
  });

  it('every x-input-field names a field of UserInput', () => {
    for (const answer of ['UserCreated', 'UserUpdated']) {
      for (const [key, property] of Object.entries(
        resolve(schemas[answer] ?? {}).properties ?? {},
      )) {
        const named = property['x-input-field'];
        if (named !== undefined) {
          expect(Object.keys(input.properties ?? {}), `${answer}.${key}`).toContain(named);
        }
      }
    }
  });
});
