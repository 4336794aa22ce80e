import { describe, expect, it } from 'vitest';
import { ajv, spec } from './spec.js';

type Ref = { $ref: string };
type MediaType = { schema: Ref; examples?: Record<string, Ref> };
type Content = Record<string, MediaType>;

function deref<T>(value: T | Ref): T {
  if (value && typeof value === 'object' && '$ref' in value) {
    const path = value.$ref.replace(/^#\//, '').split('/');
    // biome-ignore lint/suspicious/noExplicitAny: walking a JSON document
    return path.reduce<any>((node, key) => node[key.replace(/~1/g, '/').replace(/~0/g, '~')], spec);
  }
  return value as T;
}

/** Every (operation, status or request, media type, named example) the spec documents. */
function documentedExamples() {
  const rows: { where: string; schema: Ref; example: string }[] = [];
  for (const [path, item] of Object.entries(spec.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (method === 'parameters') continue;
      const operation = op as {
        operationId: string;
        requestBody?: { content: Content };
        responses: Record<string, Ref | { content?: Content }>;
      };
      const bodies: [string, Content | undefined][] = [
        ['request', operation.requestBody?.content],
        ...Object.entries(operation.responses).map(
          ([status, response]) =>
            [status, deref<{ content?: Content }>(response).content] as [
              string,
              Content | undefined,
            ],
        ),
      ];
      for (const [part, content] of bodies) {
        for (const [mediaType, media] of Object.entries(content ?? {})) {
          const examples = Object.entries(media.examples ?? {});
          expect(
            examples.length,
            `${method} ${path} ${part} ${mediaType} has named examples`,
          ).toBeGreaterThan(0);
          for (const [name, ref] of examples) {
            rows.push({
              where: `${operation.operationId} ${part} ${mediaType} ${name}`,
              schema: media.schema,
              example: ref.$ref,
            });
          }
        }
      }
    }
  }
  return rows;
}

describe('named examples', () => {
  const rows = documentedExamples();

  it.each(rows.map((row) => [row.where, row] as const))('%s matches its schema', (_, row) => {
    const validate = ajv.compile({ $ref: `spec${row.schema.$ref}` });
    const value = deref<{ value: unknown }>({ $ref: row.example }).value;
    expect(validate(value), JSON.stringify(validate.errors, null, 2)).toBe(true);
  });

  it('every component example is used by an operation', () => {
    const used = new Set(rows.map((row) => row.example.split('/').pop()));
    expect(Object.keys(spec.components.examples).filter((name) => !used.has(name))).toEqual([]);
  });

  it('covers every request variant and every response the decisions name', () => {
    const where = rows.map((row) => row.where);
    for (const expected of [
      'createUser request application/json MomoAccountUser',
      'createUser request application/json BankAccountUser',
      'createUser request application/json UserWithoutAccount',
      'createUser 201 application/json UserCreatedNew',
      'createUser 200 application/json UserAddedToInstitution',
      'createUser 409 application/problem+json ExistsWithOtherDetailsProblem',
      'createUser 409 application/problem+json ConflictProblem',
      'updateUser 200 application/json UserUpdated',
    ]) {
      expect(where).toContain(expected);
    }
    for (const status of ['400', '401', '408', '409', '413', '415', '429', '500']) {
      expect(where.some((w) => w.startsWith(`createUser ${status} application/problem+json`))).toBe(
        true,
      );
    }
    for (const status of ['400', '401', '404', '408', '409', '413', '415', '429', '500']) {
      expect(where.some((w) => w.startsWith(`updateUser ${status} application/problem+json`))).toBe(
        true,
      );
    }
  });
});
