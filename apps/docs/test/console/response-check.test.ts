/**
 * The console's verdict on an answer, with validators of the same set-up the console's are
 * compiled from (`createSpecSchemas`), over the operations the build takes out of the spec.
 */
import { readFileSync } from 'node:fs';
import { createSpecSchemas } from '@institution-api/runtime/spec-ajv';
import { describe, expect, it } from 'vitest';
import { checkResponse, describeError, type Validator } from '../../console/src/response-check.js';
import { consoleSpec, responseSchemas } from '../../scripts/lib/console-spec.mjs';

const document = JSON.parse(
  readFileSync(new URL('../../dist/openapi.json', import.meta.url), 'utf8'),
);
const spec = consoleSpec(document);
const schemas = createSpecSchemas(document);
const validators: Record<string, Validator> = Object.fromEntries(
  responseSchemas(spec).map((name) => [name, schemas.validator(name) as Validator]),
);
const [create, update] = spec.operations;
const example = (name: string) => structuredClone(document.components.examples[name].value);
const json = 'application/json; charset=utf-8';
const problem = 'application/problem+json; charset=utf-8';

describe('checkResponse', () => {
  it.each([
    ['create', '201', 'UserCreatedNew', 'UserCreated'],
    ['create', '200', 'UserAddedToInstitution', 'UserCreated'],
    ['update', '200', 'UserUpdated', 'UserUpdated'],
  ])("finds %s's %s example valid against %s", (which, status, name, schema) => {
    const operation = which === 'create' ? create : update;
    if (!operation) throw new Error('no operation');
    expect(
      checkResponse(operation, validators, Number(status), json, JSON.stringify(example(name))),
    ).toEqual({ valid: true, schema, problems: [] });
  });

  it('checks a problem against Problem, with its own media type', () => {
    const body = JSON.stringify(example('UnauthorizedProblem'));
    if (!update) throw new Error('no operation');
    expect(checkResponse(update, validators, 401, problem, body)).toEqual({
      valid: true,
      schema: 'Problem',
      problems: [],
    });
    expect(checkResponse(update, validators, 401, json, body)).toEqual({
      valid: false,
      schema: 'Problem',
      problems: ['Content-Type is application/json; the spec says application/problem+json'],
    });
  });

  it('names the field and the rule a body breaks', () => {
    const body = { ...example('UserUpdated'), email: 'not-an-email', extra: true };
    if (!update) throw new Error('no operation');
    const check = checkResponse(update, validators, 200, json, JSON.stringify(body));
    expect(check.valid).toBe(false);
    expect(check.problems).toEqual(
      expect.arrayContaining([
        '(the body): must NOT have additional properties "extra" (additionalProperties)',
        '/email: must match format "email" (format)',
      ]),
    );
  });

  it('finds the create shape invalid for an update answer', () => {
    if (!update) throw new Error('no operation');
    const check = checkResponse(
      update,
      validators,
      200,
      json,
      JSON.stringify(example('UserCreatedNew')),
    );
    expect(check.valid).toBe(false);
    expect(check.problems.join('\n')).toContain('userImage');
  });

  it('says when the status is not documented, or the body is not JSON', () => {
    if (!create) throw new Error('no operation');
    expect(checkResponse(create, validators, 404, problem, '{}')).toEqual({
      valid: false,
      problems: ['status 404 is not documented for createUser'],
    });
    expect(checkResponse(create, validators, 201, json, '<html>')).toMatchObject({
      valid: false,
      problems: ['the body is not JSON'],
    });
  });

  it('lists at most ten broken rules, and how many more', () => {
    if (!create) throw new Error('no operation');
    const body = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`x${i}`, i]));
    const { problems } = checkResponse(create, validators, 201, json, JSON.stringify(body));
    expect(problems).toHaveLength(11);
    expect(problems.at(-1)).toMatch(/^and \d+ more$/);
  });
});

it('describes an error without an instance path as the body', () => {
  expect(describeError({ instancePath: '', keyword: 'type', message: 'must be object' })).toBe(
    '(the body): must be object (type)',
  );
});
