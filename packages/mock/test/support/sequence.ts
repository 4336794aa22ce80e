/**
 * A seeded sequence of requests for the differential test: creates and updates from the spec's
 * examples with identities drawn from small pools (so people are created again, joined by
 * another institution, refused, and emails collide), invalid bodies and headers, bad signatures,
 * forced answers, unknown paths and methods. Targets of updates name the n-th person created, so
 * each service gets its own id for that person.
 */
import { authorizationHeader } from '@institution-api/test-support/signed-request';
import { openapiDocument } from '@institution-api/types';
import { INSTITUTIONS } from './institutions.js';

/** One request, before it is addressed to a service. */
export interface PlannedRequest {
  label: string;
  method: string;
  /** The path, where `{person:N}` is the id the service answered for the N-th person created. */
  path: string;
  headers: Record<string, string>;
  body: string;
  /** Signed as (an index into INSTITUTIONS), or how the Authorization header is broken. */
  auth: number | 'none' | 'wrong-signature' | 'unknown-key';
}

/** A small, seedable generator (mulberry32): the same seed, the same sequence. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (max: number) => Math.floor(next() * max);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T;
  return { next, int, pick };
}

type Body = Record<string, unknown>;
const examples = openapiDocument.components.examples as Record<string, { value: Body }>;
const requestExamples = ['MomoAccountUser', 'BankAccountUser', 'UserWithoutAccount'].map(
  (name) => examples[name]?.value as Body,
);
const USERS = '/api/v1/external/users';

/** `count` requests from `seed`. */
export function plannedSequence(seed: number, count: number): PlannedRequest[] {
  const r = random(seed);
  const cards = Array.from(
    { length: 24 },
    (_, i) => `GHA-${String(100000000 + i * 7919)}-${i % 10}`,
  );
  const mobiles = ['0241234567', '0201234567', '+233501234567', '233241234568'];
  const emails = Array.from({ length: 40 }, (_, i) => `person${i}@example.com`);
  let created = 0;
  const person = (): Body => {
    const body: Body = structuredClone(r.pick(requestExamples));
    const card = r.pick(cards);
    body.ghanaCardNumber = r.int(3) === 0 ? card.replaceAll('-', '').toLowerCase() : card;
    body.mobileNumber = r.pick(mobiles);
    if (body.accountType === 'MOMO') body.accountNumber = body.mobileNumber;
    body.email = r.int(4) === 0 ? r.pick(emails).toUpperCase() : r.pick(emails);
    body.firstName = r.pick(['Ama', 'Kwame', 'Akosua 😀', '\uFEFFYaw', 'Efua\u2028']);
    body.monthlyIncome = r.int(100000) / 100;
    return body;
  };
  const broken = (body: Body): { body: string; label: string } => {
    const variants: [string, () => string][] = [
      ['a required field missing', () => JSON.stringify({ ...body, firstName: undefined })],
      ['a field of the wrong type', () => JSON.stringify({ ...body, monthlyIncome: 'a lot' })],
      ['an unknown field', () => JSON.stringify({ ...body, nickname: 'Ama' })],
      [
        'a MOMO account without network',
        () =>
          JSON.stringify({
            ...body,
            accountType: 'MOMO',
            accountNumber: '0241234567',
            accountName: 'A',
            network: undefined,
            bankName: undefined,
          }),
      ],
      [
        'account details without accountType',
        () => JSON.stringify({ ...body, accountType: undefined, accountName: 'A' }),
      ],
      ['a bad mobile number', () => JSON.stringify({ ...body, mobileNumber: '12345' })],
      ['a date that does not exist', () => JSON.stringify({ ...body, dateOfBirth: '1990-02-30' })],
      ['malformed JSON', () => `${JSON.stringify(body).slice(0, -1)},`],
      ['a top-level array', () => JSON.stringify([body])],
      ['a NUL character', () => JSON.stringify({ ...body, lastName: 'a\u0000b' })],
      [
        'a lone surrogate',
        () => JSON.stringify(body).replace('"lastName":"', '"lastName":"\\ud800'),
      ],
      ['a __proto__ key', () => JSON.stringify(body).replace('{', '{"__proto__":{"x":1},')],
      ['an empty body', () => ''],
    ];
    const [label, make] = r.pick(variants);
    return { label, body: make() };
  };
  const json = { 'content-type': 'application/json' };
  const plan: PlannedRequest[] = [];
  const target = () =>
    created === 0 || r.int(6) === 0
      ? r.pick(['1b4e28ba-2fa1-11d2-883f-0016d3cca427', 'not-a-uuid', 'ABC%E0%A4%A'])
      : `{person:${r.int(created)}}`;
  while (plan.length < count) {
    const as = r.int(4) === 0 ? 1 : 0;
    const roll = r.int(100);
    if (roll < 35) {
      plan.push({
        label: 'create',
        method: 'POST',
        path: USERS,
        headers: json,
        body: JSON.stringify(person()),
        auth: as,
      });
      created++;
    } else if (roll < 55) {
      plan.push({
        label: 'update',
        method: 'PUT',
        path: `${USERS}/${target()}`,
        headers: json,
        body: JSON.stringify(person()),
        auth: as,
      });
    } else if (roll < 75) {
      const { label, body } = broken(person());
      const update = r.int(2) === 0;
      plan.push({
        label: `${update ? 'update' : 'create'} with ${label}`,
        method: update ? 'PUT' : 'POST',
        path: update ? `${USERS}/${target()}` : USERS,
        headers: json,
        body,
        auth: as,
      });
    } else if (roll < 82) {
      plan.push({
        label: 'create with a broken signature',
        method: 'POST',
        path: USERS,
        headers: json,
        body: JSON.stringify(person()),
        auth: r.pick(['none', 'wrong-signature', 'unknown-key'] as const),
      });
    } else if (roll < 90) {
      const prefer = r.pick([
        'code=503',
        'code=429',
        'code=409, example=ConflictProblem',
        'code=400',
        'code=418',
        'code=201',
        'code=abc',
      ]);
      const update = r.int(2) === 0;
      plan.push({
        label: `Prefer: ${prefer}`,
        method: update ? 'PUT' : 'POST',
        path: update ? `${USERS}/${target()}` : USERS,
        headers: { ...json, prefer },
        body: JSON.stringify(person()),
        auth: as,
      });
    } else {
      const [label, method, path, headers] = r.pick([
        ['another content type', 'POST', USERS, { 'content-type': 'text/plain' }],
        [
          'a Prefer header too long',
          'PUT',
          `${USERS}/not-a-uuid`,
          { ...json, prefer: 'x'.repeat(300) },
        ],
        ['an unknown query parameter', 'POST', `${USERS}?debug=1`, json],
        ['another method', 'DELETE', USERS, json],
        ['an unknown path', 'POST', `${USERS}/a/b`, json],
        ['a trailing slash', 'POST', `${USERS}/`, json],
      ] as const);
      plan.push({
        label,
        method,
        path,
        headers: { ...headers },
        body: JSON.stringify(person()),
        auth: as,
      });
    }
  }
  return plan;
}

/** The Authorization header of a planned request. */
export function authorizationOf(request: PlannedRequest): string | undefined {
  const [first] = INSTITUTIONS;
  switch (request.auth) {
    case 'none':
      return undefined;
    case 'wrong-signature':
      return authorizationHeader(first, request.body, { secretKey: 'not-the-secret-key' });
    case 'unknown-key':
      return authorizationHeader(first, request.body, { publicKey: 'nobody' });
    default:
      return authorizationHeader(INSTITUTIONS[request.auth] ?? first, request.body);
  }
}
