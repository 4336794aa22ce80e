/**
 * The mock against the reference server: the same seeded sequence of requests to both, and their
 * answers compared once normalized (ids by order of appearance, times aside): status, media type,
 * the headers a client acts on, and the body.
 */

import type { ListeningProcess } from '@institution-api/test-support/listening-process';
import {
  type RunningServer,
  startReferenceServer,
} from '@institution-api/test-support/reference-server';
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

  /** Ids named by their order of appearance, times as `<time>`. */
  normalize(text: string) {
    const named = text
      .replace(uuid, (id) => {
        const key = id.toLowerCase();
        if (!this.names.has(key)) this.names.set(key, `<id ${this.names.size}>`);
        return this.names.get(key) as string;
      })
      .replace(dateTime, '<time>');
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
