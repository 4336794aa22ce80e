/**
 * What the contract means beyond what its schemas can say, in one place: the rules written in the
 * spec's prose (its "Assumptions" section of `info.description` and the operations' descriptions)
 * that the generic generator and checks cannot read from JSON Schema. Everything else in this
 * package follows the spec generically; change a rule here when the spec's prose changes.
 *
 * What a create or an update must do (existing users, unique email, institution scope, update
 * replaces, normalized numbers) is not here but in the one model of the semantics,
 * `@institution-api/runtime/model`, which the mock answers with too. Here are the generators'
 * helpers that know which fields carry that meaning, and how answers are read and compared:
 *
 * - **Existing users** are recognized by their Ghana Card number in normalized form; another
 *   institution joins a user only with the same mobile number (Assumptions, "Existing users").
 * - **Unique email**, compared without regard to letter case (Assumptions, "Unique email").
 * - **mobileNumber** and **ghanaCardNumber** are stored and returned in one normalized form; a
 *   MOMO account number is a mobile number (Assumptions, "mobileNumber", "ghanaCardNumber",
 *   "MOMO accounts").
 * - **Update replaces**: an optional field absent from an update is cleared (Assumptions).
 * - **Absent fields** and **details follow the spec**: what a field absent from a request is,
 *   and where each answer carries each field, are read from the spec's schemas (its `UserInput`,
 *   `UserCreated` and `UserUpdated`, through `@institution-api/runtime/user-details`), never listed
 *   here; a field the spec adds is modelled with no change (Assumptions).
 * - **Text**: strings are stored byte for byte; U+0000 and lone surrogates are refused
 *   (Assumptions, "Text", "Field bounds"), so valid text never contains them.
 *
 * @module
 */
import { randomInt } from 'node:crypto';
import { normalizeUser, type User } from '@institution-api/client';
import {
  normalizedCard,
  normalizedMobile,
  storedDetails as stored,
} from '@institution-api/runtime/model';
import {
  type AnswerKey,
  type AnswerShape,
  dateOf,
  type UserDetailsModel,
  userDetailsModel,
} from '@institution-api/runtime/user-details';
import type { UserInput } from '@institution-api/types';
import fc from 'fast-check';

/**
 * How the service normalizes the numbers it stores: the one model of its semantics, which the
 * mock answers with too (`@institution-api/runtime/model`).
 */
export { normalizedCard, normalizedMobile } from '@institution-api/runtime/model';

/** The request field that recognizes a person (Assumptions, "Existing users"). */
export const CARD_FIELD = 'ghanaCardNumber';
/** The request field another institution must match to join a person. */
export const MOBILE_FIELD = 'mobileNumber';
/** The request field that belongs to one user only (Assumptions, "Unique email"). */
export const EMAIL_FIELD = 'email';

/**
 * One unit of valid free text: mostly printable ASCII, sometimes any printable grapheme (emoji,
 * combining marks, other scripts) and the characters the spec promises to keep byte for byte
 * (U+FEFF, U+2028, U+202E, quotes and backslashes that JSON escapes). Never U+0000 nor a lone
 * surrogate, which the spec refuses.
 */
export const textUnit: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }), weight: 6 },
  { arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }), weight: 3 },
  { arbitrary: fc.constantFrom('\uFEFF', '\u2028', '\u202E', '"', '\\', '/', '\t'), weight: 1 },
);

type Body = Record<string, unknown>;

const digits = (count: number) => Array.from({ length: count }, () => randomInt(10)).join('');
const letters = (count: number) =>
  Array.from({ length: count }, () => 'abcdefghijklmnopqrstuvwxyz0123456789'[randomInt(36)]).join(
    '',
  );

/**
 * `body` as a person no run has registered yet: a Ghana Card number of ten random digits (in the
 * spelling the body used: dashes and letter case kept) and an email whose local part starts with
 * a random token (its length kept when it is long enough, so a length bound stays probed). Both
 * come from a cryptographic source, not from the run's seed: a service keeps its users between
 * runs, and a replayed seed must still create new people. Values that are not strings (a broken
 * body) are left alone.
 */
export function freshIdentity(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const copy: Body = { ...(body as Body) };
  const card = copy[CARD_FIELD];
  if (typeof card === 'string') {
    const fresh = digits(10);
    let index = 0;
    copy[CARD_FIELD] = card.replace(/\d/g, () => fresh[index++] ?? '0');
  }
  const email = copy[EMAIL_FIELD];
  if (typeof email === 'string' && email.includes('@')) {
    const at = email.lastIndexOf('@');
    const local = email.slice(0, at);
    const token = letters(10);
    const fresh =
      local.length > token.length ? token + local.slice(token.length) : `${token}.${local}`;
    copy[EMAIL_FIELD] = `${fresh}${email.slice(at)}`;
  }
  return copy;
}

/** The other spellings of one mobile number (all three are the same number to the service). */
export function mobileSpellings(value: string): string[] {
  const national = value.slice(-9);
  return [`0${national}`, `233${national}`, `+233${national}`];
}

/** The other spellings of one card number (dashes and letter case are optional). */
export function cardSpellings(value: string): string[] {
  const canonical = normalizedCard(value);
  return [canonical, canonical.toLowerCase(), canonical.replaceAll('-', '')];
}

/**
 * Another valid mobile number than `value`: the last digit changed (the national pattern ends in
 * six free digits, so the result stays a mobile number).
 */
export function otherMobile(value: string): string {
  const last = Number(value.at(-1));
  return `${value.slice(0, -1)}${(last + 1) % 10}`;
}

/** `body` recognized as `person`: the same card (respelled) and, when given, the same mobile. */
export function asPerson(
  body: unknown,
  person: { card: string; mobile?: string },
  spelling: number,
): Body {
  const copy: Body = { ...(body as Body) };
  const cards = cardSpellings(person.card);
  copy[CARD_FIELD] = cards[spelling % cards.length];
  if (person.mobile !== undefined) {
    const mobiles = mobileSpellings(person.mobile);
    copy[MOBILE_FIELD] = mobiles[spelling % mobiles.length];
  }
  return copy;
}

/** The identity of a valid request body: its normalized card, mobile and email. */
export function identityOf(body: unknown): { card: string; mobile: string; email: string } {
  const value = body as Body;
  return {
    card: normalizedCard(String(value[CARD_FIELD])),
    mobile: normalizedMobile(String(value[MOBILE_FIELD])),
    email: String(value[EMAIL_FIELD]),
  };
}

/**
 * The details the service must store for a valid request body, in the request's shape (the
 * model's `storedDetails`, for a body the generators made), with the fields of `model`: the spec
 * under test's schemas (spec: Assumptions, "Absent fields", "Details follow the spec").
 */
export function storedDetails(body: unknown, model: UserDetailsModel = userDetailsModel): Body {
  return stored(body as UserInput, model) as unknown as Body;
}

/** The request fields an answer of `shape` carries: its keys' fields, and its account's. */
export function carriedFields(shape: AnswerShape, model: UserDetailsModel = userDetailsModel) {
  const carried = new Set<string>();
  for (const { field, keys } of model.answers[shape]) {
    if (field !== undefined) carried.add(field);
    for (const key of keys ?? []) if (key.field !== undefined) carried.add(key.field);
  }
  return carried;
}

/**
 * A create (`shape` `created`) or update (`updated`) answer read back into the request's shape,
 * key by key as the spec's schemas of that answer name them (`model`): a date-time as its date,
 * the account object's keys as the account fields. Strict, unlike the client's tolerant reader: a
 * key the answer must carry and leaves out stays out (never read as null), so a field the service
 * drops is noticed. Undefined when the answer is not an object.
 */
export function answeredDetails(
  answer: unknown,
  shape: AnswerShape,
  model: UserDetailsModel = userDetailsModel,
): Body | undefined {
  if (!isPlainObject(answer)) return undefined;
  const details: Body = {};
  const read = (object: Body, keys: readonly AnswerKey[]) => {
    for (const { key, field, dateTime, required, keys: nested } of keys) {
      const value = object[key];
      if (nested && isPlainObject(value)) read(value, nested);
      if (field === undefined) continue;
      if (key in object) {
        details[field] = dateTime && typeof value === 'string' ? (dateOf(value) ?? value) : value;
      } else if (!required) {
        // A key the schema lets the answer leave out (the update answer's bankName of a MOMO
        // account) reads as the field's absent value; one it must carry stays out.
        details[field] = absentOf(field, model);
      }
    }
  };
  read(answer, model.answers[shape]);
  return details;
}

/**
 * Where an answer of `shape` differs from the details the model expects of the user: every field
 * that answer carries, compared as {@link detailDifferences} does.
 */
export function answerDifferences(
  expected: Body,
  answer: unknown,
  shape: AnswerShape,
  model: UserDetailsModel = userDetailsModel,
): string[] {
  const carried = carriedFields(shape, model);
  const wanted = Object.fromEntries(Object.entries(expected).filter(([name]) => carried.has(name)));
  return detailDifferences(wanted, answeredDetails(answer, shape, model) ?? {});
}

/** The answer as the client's one `User`, or undefined when it cannot be read. */
export function readUser(answer: unknown): User | undefined {
  try {
    return normalizeUser(answer as Parameters<typeof normalizeUser>[0]);
  } catch {
    return undefined;
  }
}

/**
 * Field by field, where `actual` differs from `expected` (both in the request's shape). A key
 * `actual` lacks is a difference, even where `null` is expected: a missing field is not a null
 * one, so a field dropped on the way is noticed.
 */
export function detailDifferences(expected: Body, actual: Body, ignore: string[] = []): string[] {
  const differences: string[] = [];
  const shown = (value: unknown) =>
    value === undefined ? 'nothing (no such key)' : JSON.stringify(value);
  const walk = (a: unknown, b: unknown, path: string) => {
    if (isPlainObject(a) && isPlainObject(b)) {
      for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
        if (!ignore.includes(`${path}${key}`)) walk(a[key], b[key], `${path}${key}.`);
      }
      return;
    }
    const equal =
      Object.is(a, b) ||
      (a !== undefined && b !== undefined && JSON.stringify(a) === JSON.stringify(b));
    if (!equal) {
      differences.push(`${path.slice(0, -1)}: sent ${shown(a)}, answered ${shown(b)}`);
    }
  };
  walk(expected, actual, '');
  return differences;
}

/** The absent value of a request field (spec: Assumptions, "Absent fields"). */
function absentOf(name: string, model: UserDetailsModel): unknown {
  return model.input.find((field) => field.name === name)?.absent?.value ?? null;
}

function isPlainObject(value: unknown): value is Body {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Which stored values of a person a refusal reveals: its id, email, mobile number, and names long
 * enough to be telling, when the answer's text carries them and the request did not.
 */
export function revealedValues(
  answerText: string,
  requestText: string,
  stored: Body & { id: string },
): string[] {
  const candidates = [
    stored.id,
    String(stored[EMAIL_FIELD]),
    String(stored[MOBILE_FIELD]).slice(-9),
    ...['firstName', 'lastName']
      .map((name) => String(stored[name] ?? ''))
      .filter((name) => name.length >= 8),
  ];
  return candidates.filter(
    (value) => value.length > 0 && answerText.includes(value) && !requestText.includes(value),
  );
}
