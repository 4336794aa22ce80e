/**
 * A user's details as the spec describes them, read from its schemas rather than listed by hand:
 * the fields of `UserInput`, what an absent one means, and where each of the two answers
 * (`UserCreated`, `UserUpdated`) carries each field. The reference server stores and answers
 * with it, the client reads answers and writes requests with it, and the conformance suite
 * models the service with it, so a new optional field of `UserInput` that both answers carry
 * needs no code (spec: Assumptions, "Details follow the spec").
 *
 * Derived from any OpenAPI document that has the three schemas ({@link deriveUserDetailsModel});
 * {@link userDetailsModel} is the bundled spec's.
 *
 * @module
 */
import { userSchemas } from './generated/user-schemas.js';

type Schema = Record<string, unknown>;

/** One field of `UserInput` (or of an object inside it, such as `kyc`). */
export interface DetailField {
  /** The field's name in `UserInput`; the client's `User` calls it the same. */
  readonly name: string;
  /** `UserInput` requires it. */
  readonly required: boolean;
  /**
   * What the field is when a request leaves it out (spec: Assumptions, "Absent fields"): its
   * schema's `default`; else `null` when it may be null; else, for an object, the object of its
   * own fields' absent values. Undefined: absence has no value (a required field).
   */
  readonly absent?: { readonly value: unknown };
  /** A date (`format: date`), which the answers may carry as a date-time. */
  readonly date: boolean;
  /** The fields of an object (`kyc`), for what it leaves out. */
  readonly fields?: readonly DetailField[];
  /** One of the payout account's fields: a property of `UserInput`'s `oneOf` variants. */
  readonly account: boolean;
}

/** One key of an answer schema. */
export interface AnswerKey {
  /** The key as this answer spells it. */
  readonly key: string;
  /**
   * The `UserInput` field whose value it carries: the key itself when `UserInput` has a field of
   * that name, or the field the answer's property names with `x-input-field` (`userImage`: the
   * create answer's name of `image`). Undefined: a value of the service's own (`id`, `createdAt`,
   * `documents`, the `account` object).
   */
  readonly field?: string;
  /** Sent as a date, answered as a date-time at midnight UTC (`format: date-time` here). */
  readonly dateTime: boolean;
  /** An array (`documents`): absent reads as an empty list. */
  readonly list: boolean;
  /** The answer schema requires the key. */
  readonly required: boolean;
}

/** The two answers' names, as this module calls them. */
export type AnswerShape = 'created' | 'updated';

/** A user's details, as the spec's three schemas describe them. */
export interface UserDetailsModel {
  /** `UserInput`'s fields, in the schema's order. */
  readonly input: readonly DetailField[];
  /** The keys of each answer, in its schema's order: `UserCreated` and `UserUpdated`. */
  readonly answers: Readonly<Record<AnswerShape, readonly AnswerKey[]>>;
}

/** The schema of each answer shape, by component name. */
const answerSchemas: Record<AnswerShape, string> = {
  created: 'UserCreated',
  updated: 'UserUpdated',
};

/**
 * The details model of `document`'s `UserInput`, `UserCreated` and `UserUpdated` schemas. Throws
 * when one is missing, or when an `x-input-field` names no field of `UserInput`.
 */
export function deriveUserDetailsModel(document: {
  components?: { schemas?: Record<string, unknown> };
}): UserDetailsModel {
  const schemas = (document.components?.schemas ?? {}) as Record<string, Schema>;
  const named = (name: string): Schema => {
    const schema = schemas[name];
    if (!schema) throw new Error(`The spec has no schema ${name}, which user details need.`);
    return schema;
  };
  const deref = (schema: Schema): Schema => {
    let at = schema;
    for (let hops = 0; typeof at.$ref === 'string' && hops < 32; hops++) {
      const { $ref, ...siblings } = at;
      const name = /^#\/components\/schemas\/([^/]+)$/.exec($ref as string)?.[1];
      if (name === undefined) throw new Error(`Cannot follow the reference ${String($ref)}.`);
      at = { ...named(decodeURIComponent(name)), ...siblings };
    }
    return at;
  };

  const input = deref(named('UserInput'));
  const accountFields = new Set(
    ((input.oneOf ?? []) as Schema[]).flatMap((variant) =>
      Object.keys((deref(variant).properties ?? {}) as Schema),
    ),
  );
  const fieldsOf = (schema: Schema, top: boolean): DetailField[] => {
    const required = (schema.required ?? []) as string[];
    return Object.entries((schema.properties ?? {}) as Record<string, Schema>).map(
      ([name, raw]) => {
        const property = deref(raw);
        const fields = isObjectSchema(property) ? fieldsOf(property, false) : undefined;
        const absent =
          'default' in property
            ? { value: property.default }
            : nullable(property, deref)
              ? { value: null }
              : fields
                ? { value: withDefaults(fields, {}) }
                : undefined;
        return {
          name,
          required: required.includes(name),
          ...(absent && !required.includes(name) ? { absent } : {}),
          date: property.format === 'date',
          ...(fields ? { fields } : {}),
          account: top && accountFields.has(name),
        };
      },
    );
  };
  const fields = fieldsOf(input, true);
  const byName = new Map(fields.map((field) => [field.name, field]));

  const answerKeys = (shape: AnswerShape): AnswerKey[] => {
    const schema = deref(named(answerSchemas[shape]));
    const required = (schema.required ?? []) as string[];
    return Object.entries((schema.properties ?? {}) as Record<string, Schema>).map(([key, raw]) => {
      const property = deref(raw);
      const inputField = property['x-input-field'];
      if (inputField !== undefined && (typeof inputField !== 'string' || !byName.has(inputField))) {
        throw new Error(
          `${answerSchemas[shape]}.${key} has x-input-field ${JSON.stringify(inputField)}, which is no field of UserInput.`,
        );
      }
      const carried = byName.get((inputField as string | undefined) ?? key);
      const field = carried && !carried.account ? carried : undefined;
      return {
        key,
        ...(field ? { field: field.name } : {}),
        dateTime: field?.date === true && property.format === 'date-time',
        list: typesOf(property, deref).has('array'),
        required: required.includes(key),
      };
    });
  };
  return {
    input: fields,
    answers: { created: answerKeys('created'), updated: answerKeys('updated') },
  };
}

/** The bundled spec's details model (see {@link deriveUserDetailsModel}). */
export const userDetailsModel: UserDetailsModel = deriveUserDetailsModel(userSchemas);

/**
 * `value` with each field of `fields` it leaves out given its absent value
 * ({@link DetailField.absent}), into nested objects too; the keys it has are kept as they are.
 * The one place where "absent means null, `false`, …" is applied.
 */
export function withDefaults(
  fields: readonly DetailField[],
  value: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const complete: Record<string, unknown> = { ...value };
  for (const field of fields) {
    const given = complete[field.name];
    const filled = presentValue(field, given);
    if (filled !== given) complete[field.name] = filled;
  }
  return complete;
}

/**
 * The value of one field as {@link withDefaults} leaves it: `given`, or its absent value when
 * undefined, an object completed with its fields' absent values (`given` itself when it lacks
 * none). Undefined when absent with no absent value.
 */
export function presentValue(field: DetailField, given: unknown): unknown {
  if (given === undefined) return field.absent ? copyOf(field.absent.value) : undefined;
  if (field.fields && isPlainObject(given)) {
    for (const nested of field.fields) {
      const value = given[nested.name];
      if (value === undefined ? nested.absent !== undefined : nested.fields !== undefined) {
        return withDefaults(field.fields, given);
      }
    }
  }
  return given;
}

/** Each answer key with the field it carries, resolved once per model. */
const resolvedAnswers = new WeakMap<
  UserDetailsModel,
  Record<AnswerShape, { key: AnswerKey; field?: DetailField }[]>
>();

function resolved(model: UserDetailsModel, shape: AnswerShape) {
  let shapes = resolvedAnswers.get(model);
  if (!shapes) {
    const fields = new Map(model.input.map((field) => [field.name, field]));
    const resolve = (keys: readonly AnswerKey[]) =>
      keys.map((key) => {
        const field = key.field === undefined ? undefined : fields.get(key.field);
        return field ? { key, field } : { key };
      });
    shapes = { created: resolve(model.answers.created), updated: resolve(model.answers.updated) };
    resolvedAnswers.set(model, shapes);
  }
  return shapes[shape];
}

/**
 * An answer of one shape, its keys in its schema's order: each key that carries a `UserInput`
 * field takes the field's value from `details` (absent: its absent value; a date as a date-time
 * at midnight UTC where the answer says so), each other key its value from `own`. Throws when a
 * key the answer requires has no value: the caller forgot one of its own keys.
 */
export function answerOf(
  model: UserDetailsModel,
  shape: AnswerShape,
  details: Readonly<Record<string, unknown>>,
  own: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const answer: Record<string, unknown> = {};
  for (const { key, field } of resolved(model, shape)) {
    let value = field === undefined ? own[key.key] : presentValue(field, details[field.name]);
    if (key.dateTime && typeof value === 'string') value = dateAsDateTime(value);
    if (value !== undefined) answer[key.key] = value;
    else if (key.required) {
      throw new Error(`The ${answerSchemas[shape]} answer needs ${key.key}, which has no value.`);
    }
  }
  return answer;
}

/** A date (`YYYY-MM-DD`) as the answers carry it: a date-time at midnight UTC. */
export function dateAsDateTime(date: string): string {
  return `${date}T00:00:00.000Z`;
}

/**
 * The calendar date written at the start of a date-time (`2000-02-29T00:00:00Z` gives
 * `2000-02-29`, never shifted by a time zone); a date stays as it is. Undefined when `value` is
 * neither.
 */
export function dateOf(value: string): string | undefined {
  return /^(\d{4}-\d{2}-\d{2})(?:$|T)/.exec(value)?.[1];
}

/** One key of the client's canonical user: a `UserInput` field, or a key of the service's own. */
export interface CanonicalKey {
  /** Its name: the `UserInput` field's, or the answers' own (`id`, `documents`, `account`). */
  readonly name: string;
  /** How the answers spell it, in either shape (`userImage`, `image`). */
  readonly spellings: readonly string[];
  /** The `UserInput` field it carries. */
  readonly field?: DetailField;
  /** An array: absent reads as an empty list. */
  readonly list: boolean;
}

/**
 * The keys of one user read from either answer shape: the update answer's keys in its order, with
 * the keys only the create answer has put after the key they follow there.
 */
export function canonicalKeys(model: UserDetailsModel): CanonicalKey[] {
  const byName = new Map<string, { spellings: Set<string>; list: boolean }>();
  const order: string[] = [];
  const fields = new Map(model.input.map((field) => [field.name, field]));
  for (const shape of ['updated', 'created'] as const) {
    let previous: string | undefined;
    for (const { key, field, list } of model.answers[shape]) {
      const name = field ?? key;
      const known = byName.get(name);
      if (known) known.spellings.add(key);
      else {
        byName.set(name, { spellings: new Set([key]), list });
        order.splice(previous === undefined ? 0 : order.indexOf(previous) + 1, 0, name);
      }
      previous = name;
    }
  }
  return order.map((name) => {
    const { spellings, list } = byName.get(name) as { spellings: Set<string>; list: boolean };
    const field = fields.get(name);
    return { name, spellings: [...spellings], ...(field ? { field } : {}), list };
  });
}

function isObjectSchema(schema: Schema): boolean {
  return schema.type === 'object' && typeof schema.properties === 'object';
}

function nullable(schema: Schema, deref: (schema: Schema) => Schema): boolean {
  return typesOf(schema, deref).has('null');
}

/** The JSON types a value of `schema` may take: `type`, and the branches of `anyOf`/`oneOf`. */
function typesOf(schema: Schema, deref: (schema: Schema) => Schema): Set<string> {
  const found = new Set<string>();
  const walk = (at: Schema) => {
    for (const type of ([] as unknown[]).concat(at.type ?? [])) found.add(String(type));
    for (const key of ['anyOf', 'oneOf'] as const) {
      if (Array.isArray(at[key])) for (const branch of at[key] as Schema[]) walk(deref(branch));
    }
  };
  walk(deref(schema));
  return found;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function copyOf(value: unknown): unknown {
  return typeof value === 'object' && value !== null ? structuredClone(value) : value;
}
