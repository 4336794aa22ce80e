/**
 * The mock against the reference server: the same seeded sequence of requests to both, and their
 * answers compared once normalized (ids by order of appearance, times aside): status, media type,
 * the headers a client acts on, and the body. Then the request targets and `Host` headers that
 * fetch never sends (dot segments, `//`, absolute-form, a path smuggled in `Host`), sent to both
 * as written; and signing mistakes (a scheme word, the secret with a newline, a number spelled
 * otherwise, the secret key in keyid, two labels), diagnosed alike, never repeating the secret.
 */

import { createHmac } from 'node:crypto';
import type { ListeningProcess } from '@institution-api/test-support/listening-process';
import {
  type RawAnswer,
  type RawRequest,
  sendRaw,
} from '@institution-api/test-support/raw-request';
import {
  type RunningServer,
  startReferenceServer,
} from '@institution-api/test-support/reference-server';
import { signedRequest } from '@institution-api/test-support/signed-request';
import { distinctUserBody } from '@institution-api/test-support/user-bodies';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INSTITUTIONS } from './support/institutions.js';
import { startMockProcess } from './support/mock-process.js';
import { authorizationOf, type PlannedRequest, plannedSequence } from './support/sequence.js';

const SEEDS = [11, 12, 13];
const PER_SEED = 150;
const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const dateTime = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g;

let reference: RunningServer;
let mock: ListeningProcess;
beforeAll(async () => {
  [reference, mock] = await Promise.all([
    startReferenceServer({ credentials: [...INSTITUTIONS] }),
    startMockProcess(INSTITUTIONS),
  ]);
});
afterAll(async () => {
  await Promise.all([reference?.stop(), mock?.stop()]);
});

/** One service as the sequence sees it: the ids it answered for each person created. */
class Side {
  readonly people: string[] = [];
  readonly names = new Map<string, string>();
  constructor(readonly url: string) {}

  /** The answer to `request`, normalized. */
  async send(request: PlannedRequest, isCreate: boolean) {
    const path = request.path.replace(
      /\{person:(\d+)\}/,
      (_, n) => this.people[Number(n)] ?? 'none',
    );
    const authorization = authorizationOf(request);
    const response = await fetch(`${this.url}${path}`, {
      method: request.method,
      headers: { ...request.headers, ...(authorization ? { authorization } : {}) },
      ...(request.method === 'GET' ? {} : { body: request.body }),
    });
    const text = await response.text();
    const body = text === '' ? undefined : JSON.parse(text);
    if (isCreate && response.status === 201) this.people.push(body.id);
    if (isCreate && response.status !== 201) this.people.push('none');
    return {
      status: response.status,
      type: response.headers.get('content-type'),
      allow: response.headers.get('allow'),
      retryAfter: response.headers.get('retry-after'),
      rateLimit: response.headers.get('ratelimit'),
      body: this.normalize(text),
    };
  }

  /** The answer to a request sent as written (its target and Host), normalized. */
  async sendRaw(request: RawRequest) {
    return this.normalized(await sendRaw(this.url, request));
  }

  /** An answer as the comparison sees it. */
  normalized(answer: RawAnswer) {
    return {
      status: answer.status,
      type: answer.headers['content-type'],
      allow: answer.headers.allow,
      body: this.normalize(answer.text),
    };
  }

  /**
   * Ids named by their order of appearance, times as `<time>`, and a message signature's own
   * `created` and nonce, which each side's request has of its own, as they are in a diagnosis's
   * signature base.
   */
  normalize(text: string) {
    const named = text
      .replace(uuid, (id) => {
        const key = id.toLowerCase();
        if (!this.names.has(key)) this.names.set(key, `<id ${this.names.size}>`);
        return this.names.get(key) as string;
      })
      .replace(dateTime, '<time>')
      .replace(/;created=\d+;nonce=\\"[0-9a-f]{32}\\"/g, ';created=<time>;nonce=\\"<nonce>\\"');
    return named === '' ? undefined : JSON.parse(named);
  }
}

describe('the mock and the reference server answer one seeded sequence alike', () => {
  for (const seed of SEEDS) {
    it(`seed ${seed}: ${PER_SEED} requests`, { timeout: 120_000 }, async () => {
      const referenceSide = new Side(reference.url);
      const mockSide = new Side(mock.url);
      const differences: string[] = [];
      const statuses = new Map<number, number>();
      for (const [index, request] of plannedSequence(seed, PER_SEED).entries()) {
        const isCreate = request.label === 'create';
        const expected = await referenceSide.send(request, isCreate);
        const actual = await mockSide.send(request, isCreate);
        statuses.set(expected.status, (statuses.get(expected.status) ?? 0) + 1);
        try {
          expect(actual).toEqual(expected);
        } catch {
          differences.push(
            `#${index} ${request.label} (${request.method} ${request.path}):\n  reference ${JSON.stringify(expected)}\n  mock      ${JSON.stringify(actual)}`,
          );
        }
      }
      console.log(
        `seed ${seed}: ${PER_SEED} requests, ${differences.length} differences; statuses ${[
          ...statuses,
        ]
          .sort(([a], [b]) => a - b)
          .map(([s, n]) => `${s}×${n}`)
          .join(' ')}`,
      );
      expect(differences.slice(0, 5).join('\n')).toBe('');
      // The sequence reaches what it is for: new people, the same again, refusals, scope.
      for (const status of [200, 201, 400, 401, 404, 409])
        expect(statuses.get(status)).toBeGreaterThan(0);
    });
  }
});

const USERS = '/api/v1/external/users';
const [signer] = INSTITUTIONS;

/**
 * `method target` with `body`, signed by the first institution (its Authorization header, and a
 * message signature for `signedFor` when given), `Host` as `host` says (the side's own otherwise).
 */
function signedRaw(
  method: string,
  target: string,
  body: string,
  options: { signedFor?: string; components?: string[]; host?: string | string[] } = {},
): RawRequest {
  const { headers } = signedRequest(method, options.signedFor ?? target, signer, {
    body,
    messageSignature: options.signedFor
      ? { ...(options.components ? { components: options.components } : {}) }
      : false,
  });
  return {
    method,
    target,
    ...(options.host === undefined ? {} : { host: options.host }),
    headers,
    body,
  };
}

/** What a case knows of the side it is sent to: its URL, and the users A and B made there. */
interface Addressed {
  url: string;
  authority: string;
  a: string;
  b: string;
}

describe('the mock and the reference server answer odd targets and Host headers alike', () => {
  const body = () => JSON.stringify(distinctUserBody());
  /** Each case: its name and the request, for the side it is sent to. */
  const cases: [string, (side: Addressed, text: string) => RawRequest][] = [
    ['a dot segment', (_, t) => signedRaw('POST', '/api/v1/external/./users', t)],
    ['a dot-dot segment', (_, t) => signedRaw('POST', `${USERS}/../users`, t)],
    ['an encoded dot segment', (_, t) => signedRaw('POST', '/api/v1/external/%2e/users', t)],
    ['a double slash', (_, t) => signedRaw('POST', `/${USERS}`, t)],
    ['a trailing slash', (_, t) => signedRaw('POST', `${USERS}/`, t)],
    ['an id of ..', (_, t) => signedRaw('PUT', `${USERS}/..`, t)],
    [
      'absolute-form, with a message signature',
      (side, t) =>
        signedRaw('POST', `${side.url}${USERS}`, t, { signedFor: `${side.url}${USERS}` }),
    ],
    [
      'absolute-form, Authorization alone',
      (side, t) => signedRaw('POST', `${side.url}${USERS}`, t),
    ],
    [
      'absolute-form update',
      (side, t) =>
        signedRaw('PUT', `${side.url}${USERS}/${side.a}`, t, {
          signedFor: `${side.url}${USERS}/${side.a}`,
        }),
    ],
    [
      'absolute-form of another authority than Host, signed for it',
      (_, t) =>
        signedRaw('POST', `http://api.example.test${USERS}`, t, {
          signedFor: `http://api.example.test${USERS}`,
          components: ['@method', '@target-uri', '@authority', 'content-digest'],
        }),
    ],
    ...['#', '?', '%23', '%3F', ''].map(
      (end): [string, (side: Addressed, text: string) => RawRequest] => [
        `a signature for A sent to B, Host …/A${end}`,
        (side, t) =>
          signedRaw('PUT', `${USERS}/${side.b}`, t, {
            signedFor: `${side.url}${USERS}/${side.a}`,
            host: `${side.authority}${USERS}/${side.a}${end}`,
          }),
      ],
    ),
    [
      'a signature for A sent to B, Host with user information',
      (side, t) =>
        signedRaw('PUT', `${USERS}/${side.b}`, t, {
          signedFor: `${side.url}${USERS}/${side.a}`,
          host: `attacker@${side.authority}`,
        }),
    ],
    [
      'a signature for A sent to B, another Host',
      (side, t) =>
        signedRaw('PUT', `${USERS}/${side.b}`, t, {
          signedFor: `${side.url}${USERS}/${side.a}`,
          host: 'api.example.test',
        }),
    ],
    ['no Host', (_, t) => signedRaw('POST', USERS, t, { host: [] })],
    ['two Host lines', (side, t) => signedRaw('POST', USERS, t, { host: [side.authority, 'x'] })],
    ['a fragment in the target', (_, t) => signedRaw('POST', `${USERS}#x`, t)],
    ['OPTIONS *', (_, t) => signedRaw('OPTIONS', '*', t)],
  ];

  it(`${cases.length} requests sent as written`, { timeout: 60_000 }, async () => {
    const sides = await Promise.all(
      [reference.url, mock.url].map(async (url) => {
        const side = new Side(url);
        const [a, b] = [body(), body()];
        const ids: string[] = [];
        for (const text of [a, b]) {
          const created = await sendRaw(url, signedRaw('POST', USERS, text));
          ids.push((created.body as { id: string }).id);
        }
        side.normalize(JSON.stringify(ids));
        const [idA = '', idB = ''] = ids;
        return { side, addressed: { url, authority: new URL(url).host, a: idA, b: idB } };
      }),
    );
    const differences: string[] = [];
    const table: string[] = [];
    for (const [name, make] of cases) {
      const text = body();
      const [expected, actual] = await Promise.all(
        sides.map(({ side, addressed }) => side.sendRaw(make(addressed, text))),
      );
      table.push(`${name}: reference ${expected?.status}, mock ${actual?.status}`);
      // Both are sandboxes: a signature made for another request is explained, alike.
      if (name.startsWith('a signature for A sent to B')) {
        expect(expected?.body).toHaveProperty('diagnosis.cause', 'signature-base-differs');
      }
      try {
        expect(actual).toEqual(expected);
      } catch {
        differences.push(
          `${name}:\n  reference ${JSON.stringify(expected)}\n  mock      ${JSON.stringify(actual)}`,
        );
      }
    }
    console.log(table.join('\n'));
    expect(differences.join('\n')).toBe('');
  });
});

describe('the mock and the reference server diagnose signing mistakes alike', () => {
  const text = () => JSON.stringify(distinctUserBody());
  const { publicKey, secretKey } = signer;
  const hmacHex = (key: string, bytes: string) =>
    createHmac('sha256', key).update(bytes).digest('hex');
  /** Each case: its name, and the headers that replace the right ones of a signed request. */
  const cases: [
    string,
    (body: string, headers: Record<string, string>) => Record<string, string>,
  ][] = [
    [
      'a scheme word before the key',
      (b) => ({ authorization: `HMAC ${publicKey}:${hmacHex(secretKey, b)}` }),
    ],
    [
      'Basic credentials',
      (b) => ({
        authorization: `Basic ${Buffer.from(`${publicKey}:${hmacHex(secretKey, b)}`).toString('base64')}`,
      }),
    ],
    [
      'the secret key with a final newline',
      (b) => ({ authorization: `${publicKey}:${hmacHex(`${secretKey}\n`, b)}` }),
    ],
    [
      'the income written with two decimals when signed',
      (b) => ({
        authorization: `${publicKey}:${hmacHex(
          secretKey,
          b.replace(
            /"monthlyIncome":(\d+(?:\.\d+)?)/,
            (_, n) => `"monthlyIncome":${Number(n).toFixed(2)}`,
          ),
        )}`,
      }),
    ],
    [
      'the secret key in keyid',
      (_, headers) => ({
        'signature-input': (headers['signature-input'] ?? '').replace(
          `keyid="${publicKey}"`,
          `keyid="${secretKey}"`,
        ),
      }),
    ],
    [
      'Signature labelled otherwise',
      (_, headers) => ({ signature: (headers.signature ?? '').replace(/^sig1=/, 'sig=') }),
    ],
  ];

  it(`${cases.length} mistakes`, { timeout: 60_000 }, async () => {
    const sides = [new Side(reference.url), new Side(mock.url)];
    const differences: string[] = [];
    for (const [name, mistake] of cases) {
      const body = text();
      const raw = (url: string): RawRequest => {
        const own = signedRequest('POST', `${url}${USERS}`, signer, { body }).headers;
        return { method: 'POST', target: USERS, headers: { ...own, ...mistake(body, own) }, body };
      };
      const [expected, actual] = await Promise.all(
        sides.map((side) => side.sendRaw(raw(side.url))),
      );
      expect(expected?.status, name).toBe(401);
      expect(expected?.body, name).toHaveProperty('diagnosis');
      expect(JSON.stringify(expected), name).not.toContain(secretKey);
      try {
        expect(actual).toEqual(expected);
      } catch {
        differences.push(
          `${name}:\n  reference ${JSON.stringify(expected)}\n  mock      ${JSON.stringify(actual)}`,
        );
      }
    }
    expect(differences.join('\n')).toBe('');
  });
});
