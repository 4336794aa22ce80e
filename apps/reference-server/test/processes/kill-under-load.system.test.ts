/**
 * A process killed under load loses nothing (spec Assumptions, "Several processes"): three server processes on one
 * PostgreSQL behind a load balancer (round-robin, leaving out a backend whose connection fails, as
 * a real balancer's passive health check does), creates in flight, one process SIGKILLed. The two
 * others keep answering, 2xx only; the killed one's requests in flight at that moment are the
 * balancer's 502s (never sent again: that process may have committed them); every create
 * acknowledged by any process, the killed one included, is in the database afterwards.
 */
import { type LoadBalancer, startLoadBalancer } from '@institution-api/test-support/load-balancer';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type CreateAnswer, startCreateLoad } from '../faults/load.js';
import { countStoredUsers } from '../faults/stored-users.js';
import { newCredential, type Service, startService, withPostgres } from './service.js';

const credential = newCredential('Kill Test Savings');
/** Creates in flight at any moment. */
const concurrency = 6;

/** Counts by backend, then status: `{ "0": { "201": 120 }, "1": { "201": 40, "502": 2 }, … }`. */
function byBackend(answers: CreateAnswer[]): Record<string, Record<string, number>> {
  const table: Record<string, Record<string, number>> = {};
  for (const { backend = '?', status } of answers) {
    const row = table[backend] ?? {};
    row[status] = (row[status] ?? 0) + 1;
    table[backend] = row;
  }
  return table;
}

withPostgres('a server process SIGKILLed under load', { timeout: 60_000 }, () => {
  let service: Service;
  let balancer: LoadBalancer;

  beforeAll(async () => {
    service = await startService(3, [credential]);
    balancer = await startLoadBalancer(service.servers.map((server) => server.url));
  }, 120_000);
  afterAll(async () => {
    await balancer?.close();
    await service?.stop();
  });

  test('the two others keep answering 2xx only, and every acknowledged create is stored', async () => {
    const load = startCreateLoad(balancer.url, credential, concurrency);
    // Under way on all three: answers from each before the kill.
    const deadline = performance.now() + 30_000;
    while (['0', '1', '2'].some((b) => load.answers.filter((a) => a.backend === b).length < 20)) {
      expect(performance.now(), JSON.stringify(byBackend(load.answers))).toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const killed = service.servers[1];
    if (!killed) throw new Error('no second server');
    const killedAt = performance.now();
    await killed.kill();
    // The survivors carry the load on: 100 answers after the kill.
    await load.next(201, killedAt, 10_000);
    while (load.answers.filter((a) => a.at > killedAt).length < 100) {
      expect(performance.now() - killedAt).toBeLessThan(30_000);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const answers = await load.stop();

    const table = byBackend(answers);
    const acknowledged = answers.filter((a) => a.status >= 200 && a.status < 300);
    const ids = acknowledged.map((a) => a.id as string);
    const found = await countStoredUsers(service.postgres.url, ids);
    // Besides: creates the killed process committed but could not acknowledge (a retry of
    // them answers 200 with their id).
    const stored = Number(await service.postgres.psql('SELECT count(*) FROM users'));
    const afterKill = byBackend(answers.filter((a) => a.at > killedAt));
    console.log(
      `answers by backend and status: ${JSON.stringify(table)} (after the SIGKILL of backend 1: ${JSON.stringify(afterKill)}); acknowledged creates ${acknowledged.length}, found in PostgreSQL ${found} (users stored in all: ${stored})`,
    );

    for (const survivor of ['0', '2']) {
      expect(Object.keys(table[survivor] ?? {}), survivor).toEqual(['201']);
    }
    // The killed process answered 201 until it died; its requests in flight then are 502s.
    expect(Object.keys(table['1'] ?? {}).every((status) => ['201', '502'].includes(status))).toBe(
      true,
    );
    expect(table['1']?.['502'] ?? 0).toBeLessThanOrEqual(concurrency);
    expect(Object.keys(table).sort()).toEqual(['0', '1', '2']);
    // After the kill the survivors carried the load (a 201 of the killed process may still arrive
    // after it, sent just before it died).
    expect(afterKill['0']?.['201'] ?? 0).toBeGreaterThan(0);
    expect(afterKill['2']?.['201'] ?? 0).toBeGreaterThan(0);

    expect(new Set(ids).size).toBe(ids.length);
    expect(found).toBe(ids.length);
  });
});
