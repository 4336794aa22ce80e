import { describe, expect, test } from 'vitest';
import { spec } from './spec.js';

type Schema = Record<string, unknown>;

/** Resolves a local `$ref` of the bundled spec. */
function resolve(ref: string): Schema {
  let node: unknown = spec;
  for (const part of ref.replace(/^#\//, '').split('/')) {
    node = (node as Record<string, unknown>)[part.replaceAll('~1', '/').replaceAll('~0', '~')];
  }
  return node as Schema;
}

/**
 * Every string a client can send, with where it is: the request bodies' schemas and the
 * parameters of every operation, followed through `$ref`s and composition keywords.
 */
function requestStrings(): { where: string; schema: Schema }[] {
  const found: { where: string; schema: Schema }[] = [];
  const seen = new Set<Schema>();
  const walk = (schema: Schema | undefined, where: string) => {
    if (!schema || seen.has(schema)) return;
    seen.add(schema);
    if (typeof schema.$ref === 'string') return walk(resolve(schema.$ref), schema.$ref);
    const types = ([] as unknown[]).concat(schema.type ?? []);
    if (types.includes('string')) found.push({ where, schema });
    for (const [name, property] of Object.entries(
      (schema.properties ?? {}) as Record<string, Schema>,
    )) {
      walk(property, `${where}/${name}`);
    }
    for (const keyword of ['oneOf', 'anyOf', 'allOf']) {
      for (const [i, branch] of ((schema[keyword] ?? []) as Schema[]).entries()) {
        walk(branch, `${where}/${keyword}/${i}`);
      }
    }
    for (const keyword of ['items', 'additionalProperties', 'then', 'else', 'if']) {
      if (typeof schema[keyword] === 'object')
        walk(schema[keyword] as Schema, `${where}/${keyword}`);
    }
  };
  for (const [path, item] of Object.entries(spec.paths)) {
    for (const parameter of ((item as Schema).parameters ?? []) as Schema[]) {
      const p = (parameter.$ref ? resolve(parameter.$ref as string) : parameter) as Schema;
      walk(p.schema as Schema, `${path} parameter ${p.name}`);
    }
    for (const [method, operation] of Object.entries(item as Record<string, Schema>)) {
      if (method === 'parameters') continue;
      const body = operation.requestBody as Schema | undefined;
      const content = ((body?.$ref ? resolve(body.$ref as string) : body)?.content ?? {}) as Record<
        string,
        { schema?: Schema }
      >;
      for (const [mediaType, media] of Object.entries(content)) {
        walk(media.schema, `${method.toUpperCase()} ${path} ${mediaType}`);
      }
      for (const parameter of (operation.parameters ?? []) as Schema[]) {
        const p = (parameter.$ref ? resolve(parameter.$ref as string) : parameter) as Schema;
        walk(p.schema as Schema, `${method.toUpperCase()} ${path} parameter ${p.name}`);
      }
    }
  }
  return found;
}

describe('request-side strings (spec Assumptions, "Field bounds")', () => {
  const strings = requestStrings();

  test('are found: names, email, card and mobile numbers, URLs, KYC text, the path id', () => {
    expect(strings.length).toBeGreaterThan(15);
  });

  test('every one has a maxLength, so no field can take the whole 64 KiB body', () => {
    const unbounded = strings
      .filter(({ schema }) => typeof schema.maxLength !== 'number' && schema.enum === undefined)
      .map(({ where }) => where);
    expect(unbounded).toEqual([]);
  });
});
