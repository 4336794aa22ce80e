/**
 * A user's details as the spec describes them, read from its schemas rather than listed by hand:
 * the fields of `UserInput` (the payout account's among them), what an absent one means, and
 * where each of the two answers (`UserCreated`, `UserUpdated`) carries each field, the account's
 * inside its account object (`AccountCreated`, `AccountUpdated`). The reference server stores and
 * answers with it, the client reads answers and writes requests with it, the mock answers with it
 * and the conformance suite models the service with it, so a new optional field of `UserInput`,
 * of the account too, that both answers carry needs no code (spec: Assumptions, "Details follow
 * the spec").
 *
 * Derived from any OpenAPI document that has the three schemas ({@link deriveUserDetailsModel});
 * {@link userDetailsModel} is the bundled spec's.
 *
 * @module
 */
import { userSchemas } from '@institution-api/types/user-schemas';
import {
  branchesOf,
  componentName,
  isObject,
  type JsonObject,
  type JsonType,
  propertiesOf,
  requiredOf,
  resolveSchema,
  schemaTypes,
} from './spec/index.js';

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
  /** The JSON types its schema admits (`string`, `null`…), for a reader of text (the import). */
  readonly types: readonly JsonType[];
  /** The fields of an object (`kyc`), for what it leaves out. */
  readonly fields?: readonly DetailField[];
  /**
   * One of the payout account's fields: a property of `UserInput`'s `oneOf` variants, or a field an
   * account object of the answers carries.
   */
  readonly account: boolean;
}

/** One key of an answer schema. */
export interface AnswerKey {
  /** The key as this answer spells it. */
  readonly key: string;
  /**
   * What the key carries, the same in both answers: the `UserInput` field's name ({@link field}),
   * or for a key of the service's own its name in camelCase (`created_at` is `createdAt`).
   */
  readonly name: string;
  /**
   * The `UserInput` field whose value it carries: the field the answer's property names with
   * `x-input-field` (`userImage`: the create answer's name of `image`), else the field named as
   * the key is in camelCase (`bank_name` carries `bankName`). A key of a user answer carries a
   * field of the user, a key of the account object one of the account's. Undefined: a value of
   * the service's own (`id`, `createdAt`, `documents`, the `account` object).
   */
  readonly field?: string;
  /** Sent as a date, answered as a date-time at midnight UTC (`format: date-time` here). */
  readonly dateTime: boolean;
  /** An array (`documents`): absent reads as an empty list. */
  readonly list: boolean;
  /**
   * The answer schema requires the key. One it does not require is left out when it has no value
   * (the update answer's `bankName` of a `MOMO` account), and read as the field's absent value.
   */
  readonly required: boolean;
  /**
   * The keys of an object of the service's own whose keys carry fields too: the payout account
   * (`AccountCreated`, `AccountUpdated`), null when the user has none.
   */
  readonly keys?: readonly AnswerKey[];
}

/** The two answers' names, as this module calls them. */
export type AnswerShape = 'created' | 'updated';

/** One variant of `UserInput`'s `oneOf`: an account of one type, or none. */
export interface AccountVariant {
  /** The value it fixes the discriminator to (`MOMO`, `BANK`); null: the variant of no account. */
  readonly type: string | null;
  /** The name of its component schema (`MomoAccountDetails`), when it is one. */
  readonly component?: string;
  /** The account fields it requires. */
  readonly required: readonly string[];
  /** The account fields it admits a value other than null for: all but those it keeps null. */
  readonly admitted: readonly string[];
}

/** The payout account as `UserInput` describes it: the variants of its `oneOf`. */
export interface AccountModel {
  /** The account field every variant fixes (`accountType`): which variant a body is. */
  readonly discriminator: string;
  /** The variants, in the schema's order. */
  readonly variants: readonly AccountVariant[];
}

/** A user's details, as the spec's schemas describe them. */
export interface UserDetailsModel {
  /** `UserInput`'s fields, in the schema's order, the account's among them. */
  readonly input: readonly DetailField[];
  /** The keys of each answer, in its schema's order: `UserCreated` and `UserUpdated`. */
  readonly answers: Readonly<Record<AnswerShape, readonly AnswerKey[]>>;
  /** The payout account's variants. */
  readonly account: AccountModel;
}

/** The schema of each answer shape, by component name. */
const answerSchemas: Record<AnswerShape, string> = {
  created: 'UserCreated',
  updated: 'UserUpdated',
};

/** A key as camelCase: `created_at` is `createdAt`; a camelCase key stays as it is. */
export function camelCaseOf(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
}

/**
 * The details model of `document`'s `UserInput`, `UserCreated` and `UserUpdated` schemas (and the
 * account objects their `account` keys refer to). Throws when one is missing, when an
 * `x-input-field` names no field it may carry, or when the account variants fix no common field.
 */
export function deriveUserDetailsModel(document: {
  components?: { schemas?: Record<string, unknown> };
}): UserDetailsModel {
  const schemas = (document.components?.schemas ?? {}) as Record<string, JsonObject>;
  const named = (name: string): JsonObject => {
    const schema = schemas[name];
    if (!schema) throw new Error(`The spec has no schema ${name}, which user details need.`);
    return resolveSchema(document, schema);
  };

  const input = named('UserInput');
  const variants = ((input.oneOf ?? []) as unknown[]).map((variant) => ({
    component: componentName(variant, 'schemas'),
    properties: propertiesOf(document, variant),
    required: requiredOf(document, variant),
  }));
  // The account's fields: the properties of the variants, and a field of UserInput that only an
  // account object of the answers carries (under its name in camelCase, or by x-input-field).
  const inputNames = new Set(propertiesOf(document, input).map(([name]) => name));
  const carriedName = ([key, property]: [string, JsonObject]) =>
    String(property['x-input-field'] ?? camelCaseOf(key));
  const answerProperties = [answerSchemas.created, answerSchemas.updated].flatMap((answer) =>
    propertiesOf(document, named(answer)),
  );
  const carriedByUser = new Set(answerProperties.map(carriedName));
  const carriedByAccount = answerProperties.flatMap(([key, property]) => {
    const object = inputNames.has(key) ? undefined : objectBranch(document, property);
    return object ? propertiesOf(document, object.schema).map(carriedName) : [];
  });
  const candidates = new Set([
    ...variants.flatMap((variant) => variant.properties.map(([name]) => name)),
    ...carriedByAccount.filter((name) => !carriedByUser.has(name)),
  ]);
  const accountFields = new Set([...inputNames].filter((name) => candidates.has(name)));
  const fieldsOf = (schema: JsonObject, top: boolean): DetailField[] => {
    const required = requiredOf(document, schema);
    return propertiesOf(document, schema).map(([name, property]) => {
      const types = schemaTypes(document, property);
      const fields = isObjectSchema(property) ? fieldsOf(property, false) : undefined;
      const absent =
        'default' in property
          ? { value: property.default }
          : types.has('null')
            ? { value: null }
            : fields
              ? { value: withDefaults(fields, {}) }
              : undefined;
      return {
        name,
        required: required.includes(name),
        ...(absent && !required.includes(name) ? { absent } : {}),
        date: property.format === 'date',
        types: [...types],
        ...(fields ? { fields } : {}),
        account: top && accountFields.has(name),
      };
    });
  };
  const fields = fieldsOf(input, true);
  const byName = new Map(fields.map((field) => [field.name, field]));

  const keysOf = (schema: JsonObject, where: string, account: boolean): AnswerKey[] => {
    const required = requiredOf(document, schema);
    return propertiesOf(document, schema).map(([key, property]) => {
      const inputField = property['x-input-field'];
      const carries = (name: unknown) => {
        const field = typeof name === 'string' ? byName.get(name) : undefined;
        return field && field.account === account ? field : undefined;
      };
      if (inputField !== undefined && !carries(inputField)) {
        throw new Error(
          `${where}.${key} has x-input-field ${JSON.stringify(inputField)}, which is no field of ${account ? "UserInput's account" : 'UserInput'}.`,
        );
      }
      const field = carries(inputField ?? camelCaseOf(key));
      const types = schemaTypes(document, property);
      const object = field ? undefined : objectBranch(document, property);
      return {
        key,
        name: field?.name ?? camelCaseOf(key),
        ...(field ? { field: field.name } : {}),
        dateTime: field?.date === true && property.format === 'date-time',
        list: types.has('array'),
        required: required.includes(key),
        ...(object && !account ? { keys: keysOf(object.schema, object.name ?? key, true) } : {}),
      };
    });
  };

  return {
    input: fields,
    answers: {
      created: keysOf(named(answerSchemas.created), answerSchemas.created, false),
      updated: keysOf(named(answerSchemas.updated), answerSchemas.updated, false),
    },
    account: accountModel(document, variants, accountFields),
  };
}

/** The variants of `UserInput.oneOf` as an {@link AccountModel}. */
function accountModel(
  document: unknown,
  variants: { component?: string; properties: [string, JsonObject][]; required: string[] }[],
  accountFields: ReadonlySet<string>,
): AccountModel {
  const fixed = (property: JsonObject | undefined) =>
    property && ('const' in property || onlyNull(document, property));
  const discriminator = [...accountFields].find((name) =>
    variants.every((variant) => fixed(variant.properties.find(([field]) => field === name)?.[1])),
  );
  if (discriminator === undefined && variants.length > 0) {
    throw new Error("UserInput's oneOf variants fix no common field (such as accountType).");
  }
  return {
    discriminator: discriminator ?? '',
    variants: variants.map(({ component, properties, required }) => {
      const own = properties.find(([name]) => name === discriminator)?.[1];
      const onlyNullHere = new Set(
        properties.filter(([, property]) => onlyNull(document, property)).map(([name]) => name),
      );
      return {
        type: own && 'const' in own ? (own.const as string) : null,
        ...(component === undefined ? {} : { component }),
        required,
        admitted: [...accountFields].filter((name) => !onlyNullHere.has(name)),
      };
    }),
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

/** One answer key with the field it carries, and its own keys resolved alike. */
interface ResolvedKey {
  key: AnswerKey;
  field?: DetailField;
  keys?: ResolvedKey[];
}

/** Each answer's keys with the fields they carry, resolved once per model. */
const resolvedAnswers = new WeakMap<UserDetailsModel, Record<AnswerShape, ResolvedKey[]>>();

function resolved(model: UserDetailsModel, shape: AnswerShape): ResolvedKey[] {
  let shapes = resolvedAnswers.get(model);
  if (!shapes) {
    const fields = new Map(model.input.map((field) => [field.name, field]));
    const resolve = (keys: readonly AnswerKey[]): ResolvedKey[] =>
      keys.map((key) => {
        const field = key.field === undefined ? undefined : fields.get(key.field);
        return {
          key,
          ...(field ? { field } : {}),
          ...(key.keys ? { keys: resolve(key.keys) } : {}),
        };
      });
    shapes = { created: resolve(model.answers.created), updated: resolve(model.answers.updated) };
    resolvedAnswers.set(model, shapes);
  }
  return shapes[shape];
}

/**
 * An answer of one shape, its keys in its schema's order: each key that carries a `UserInput`
 * field takes the field's value from `details` (absent: its absent value; a date as a date-time
 * at midnight UTC where the answer says so), each other key its value from `own` by its
 * {@link AnswerKey.name}. The account object is built alike, from the account fields of
 * `details` and `own.account` (its `id` and `createdAt`), or is `own.account` when that is null:
 * the user has no account. A key the schema does not require is left out when it has no value.
 * Throws when a key the answer requires has no value: the caller forgot one of its own keys.
 */
export function answerOf(
  model: UserDetailsModel,
  shape: AnswerShape,
  details: Readonly<Record<string, unknown>>,
  own: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  return objectOf(resolved(model, shape), details, own, answerSchemas[shape]);
}

function objectOf(
  keys: readonly ResolvedKey[],
  details: Readonly<Record<string, unknown>>,
  own: Readonly<Record<string, unknown>>,
  where: string,
): Record<string, unknown> {
  const answer: Record<string, unknown> = {};
  for (const { key, field, keys: nested } of keys) {
    let value = field === undefined ? own[key.name] : presentValue(field, details[field.name]);
    if (key.dateTime && typeof value === 'string') value = dateAsDateTime(value);
    if (nested && isPlainObject(value)) value = objectOf(nested, details, value, key.key);
    if (value === undefined || (value === null && !key.required)) {
      if (key.required)
        throw new Error(`The ${where} answer needs ${key.key}, which has no value.`);
    } else answer[key.key] = value;
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
  /** How the answers spell it, in either shape (`userImage`, `image`; `bank_name`, `bankName`). */
  readonly spellings: readonly string[];
  /** The `UserInput` field it carries. */
  readonly field?: DetailField;
  /** An array: absent reads as an empty list. */
  readonly list: boolean;
  /** The keys of the account object, read alike from either answer. */
  readonly keys?: readonly CanonicalKey[];
}

/**
 * The keys of one user read from either answer shape: the update answer's keys in its order, with
 * the keys only the create answer has put after the key they follow there; the account object's
 * keys alike.
 */
export function canonicalKeys(model: UserDetailsModel): CanonicalKey[] {
  const fields = new Map(model.input.map((field) => [field.name, field]));
  return mergedKeys(model.answers.updated, model.answers.created, fields);
}

function mergedKeys(
  updated: readonly AnswerKey[],
  created: readonly AnswerKey[],
  fields: ReadonlyMap<string, DetailField>,
): CanonicalKey[] {
  const byName = new Map<string, { spellings: Set<string>; list: boolean; keys: AnswerKey[][] }>();
  const order: string[] = [];
  for (const keys of [updated, created]) {
    let previous: string | undefined;
    for (const { key, name, list, keys: nested } of keys) {
      let known = byName.get(name);
      if (!known) {
        known = { spellings: new Set(), list, keys: [] };
        byName.set(name, known);
        order.splice(previous === undefined ? 0 : order.indexOf(previous) + 1, 0, name);
      }
      known.spellings.add(key);
      if (nested) known.keys.push([...nested]);
      previous = name;
    }
  }
  return order.map((name) => {
    const { spellings, list, keys } = byName.get(name) as {
      spellings: Set<string>;
      list: boolean;
      keys: AnswerKey[][];
    };
    const field = fields.get(name);
    const [first = [], second = []] = keys;
    return {
      name,
      spellings: [...spellings],
      ...(field ? { field } : {}),
      list,
      ...(keys.length > 0 ? { keys: mergedKeys(first, second, fields) } : {}),
    };
  });
}

function isObjectSchema(schema: JsonObject): boolean {
  return schema.type === 'object' && isObject(schema.properties);
}

/** The object schema a property admits besides null (`account`: `AccountCreated`), if any. */
function objectBranch(
  document: unknown,
  property: JsonObject,
): { schema: JsonObject; name?: string } | undefined {
  if (isObjectSchema(property)) return { schema: property };
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const raw = (property[keyword] ?? []) as unknown[];
    const branches = branchesOf(document, property, keyword);
    const index = branches.findIndex(isObjectSchema);
    if (index >= 0) {
      const name = componentName(raw[index], 'schemas');
      return { schema: branches[index] as JsonObject, ...(name === undefined ? {} : { name }) };
    }
  }
  return undefined;
}

/** A schema that admits null alone (a variant's "must be absent or null"). */
function onlyNull(document: unknown, schema: JsonObject): boolean {
  const types = schemaTypes(document, schema);
  return types.size === 1 && types.has('null');
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function copyOf(value: unknown): unknown {
  return typeof value === 'object' && value !== null ? structuredClone(value) : value;
}
