/**
 * Faults of PostgreSQL under load, as an operator meets them (spec Assumptions, "500 or 503"): the server restarted,
 * every connection killed, too many clients. For each: every answer during the fault is 201 or a
 * 503 `unavailable` with `Retry-After` (never a 500), creates succeed again within 2 s of the
 * database's return without restarting the server, every acknowledged create is stored, and the
 * log says the outage once when it starts and once when it ends. Each fault lasts until the server
 * has refused a create or logged the outage, and each test waits for the log's lines, not a time.
 */
import { randomBytes } from 'node:crypto';
import { type RunningPostgres, startPostgres } from '@institution-api/test-support/postgres';
import {
  type Credential,
  type RunningServer,
  startReferenceServer,
} from '@institution-api/test-support/reference-server';
import { describeWith } from '@institution-api/test-support/requirements';
import pg from 'pg';
import { afterEach, expect, test } from 'vitest';
import { type CreateAnswer, countByStatus, startCreateLoad } from './load.js';
import { waitForOutageLog } from './outage-logged.js';
import { countStoredUsers } from './stored-users.js';

/** Within this long of the database's return, creates must succeed again. */
const recoveryBoundMs = 2_000;

const credential: Credential = {
  institution: 'Fault Test Savings',
  publicKey: `pk_faults_${randomBytes(4).toString('hex')}`,
  secretKey: randomBytes(24).toString('base64url'),
};

// Each test starts its own PostgreSQL and server: more than vitest's 30 s under a loaded CI.
describeWith('postgres', 'PostgreSQL faults under load', { timeout: 90_000 }, () => {
  let postgres: RunningPostgres;
  let server: RunningServer;

  /** The server runs as an ordinary role (`app`), as in production, not as the superuser. */
  const start = async (maxConnections?: number) => {
    postgres = await startPostgres(maxConnections ? { maxConnections } : {});
    await postgres.psql('CREATE ROLE app LOGIN');
    await postgres.psql('CREATE DATABASE app OWNER app');
    const appUrl = postgres.url.replace('postgres@', 'app@').replace(/\/postgres$/, '/app');
    server = await startReferenceServer({
      credentials: [credential],
      databaseUrl: appUrl,
      env: { LOG_LEVEL: 'info' },
    });
  };

  afterEach(async () => {
    await server?.stop();
    await postgres?.stop();
  });

  /** Every acknowledged create is a row of the database. */
  const expectStored = async (answers: CreateAnswer[]) => {
    const ids = answers.filter((a) => a.status === 201).map((a) => a.id as string);
    expect(ids.length).toBeGreaterThan(0);
    const appDatabase = postgres.url.replace(/\/postgres$/, '/app');
    expect(await countStoredUsers(appDatabase, ids)).toBe(ids.length);
  };

  /** Only 201 and 503 `unavailable` with Retry-After: 1, and at least one of the latter. */
  const expectOnlyUnavailable = (answers: CreateAnswer[]) => {
    const counts = countByStatus(answers);
    expect(Object.keys(counts).sort(), JSON.stringify(counts)).toEqual(['201', '503']);
    for (const answer of answers.filter((a) => a.status === 503)) {
      expect(answer.problemType).toBe('urn:institution-api:problem:unavailable');
      expect(answer.retryAfter).toBe('1');
    }
    return counts;
  };

  /**
   * One error line when it starts, one info line when it ends, counting the 503s. Stops the server
   * first: its log lines are written in batches, the last at exit.
   */
  const expectOutageLogged = async (answers: CreateAnswer[]) => {
    await server.stop();
    const lines = server
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const started = lines.filter((l) => String(l.msg).startsWith('database unavailable'));
    const ended = lines.filter((l) => l.msg === 'database available again');
    expect(started.length).toBeGreaterThan(0);
    expect(ended.length).toBe(started.length);
    expect(started.every((l) => l.level === 'error')).toBe(true);
    const refused = ended.reduce((sum, l) => sum + Number(l.refusedRequests), 0);
    expect(refused).toBe(answers.filter((a) => a.status === 503).length);
    // No stack trace per request: the failed requests themselves are not logged as errors.
    expect(lines.filter((l) => l.msg === 'request failed')).toEqual([]);
  };

  test('restarted (pg_ctl stop -m fast, down until creates are refused): 503s, then 201s within 2 s, nothing lost', async () => {
    await start();
    const load = startCreateLoad(server.url, credential);
    await load.next(201, 0, 10_000);
    const stoppedAt = performance.now();
    await postgres.pause();
    await load.next(503, stoppedAt, 10_000);
    await postgres.resume();
    const back = performance.now();
    const recovered = await load.next(201, back, recoveryBoundMs);
    // The end of the outage is logged once the database has answered for outageQuietMs.
    await waitForOutageLog(server, 'ended');
    const answers = await load.stop();
    const counts = expectOnlyUnavailable(answers);
    console.log(
      `restart: ${JSON.stringify(counts)}; first 201 ${Math.round(recovered.at - back)} ms after PostgreSQL was back`,
    );
    await expectStored(answers);
    await expectOutageLogged(answers);
  });

  test('every connection terminated (pg_terminate_backend): 503s at most, nothing lost', async () => {
    await start();
    const load = startCreateLoad(server.url, credential);
    await load.next(201, 0, 10_000);
    const killedAt = performance.now();
    const killed = await postgres.psql(
      `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE usename = 'app'`,
    );
    const recovered = await load.next(201, performance.now(), recoveryBoundMs);
    // Whatever outage the kill made is over in the log too.
    await waitForOutageLog(server, 'settled');
    const answers = await load.stop();
    const counts = countByStatus(answers);
    // A connection killed while idle costs nothing; one killed mid-statement is a 503.
    expect(Object.keys(counts).every((status) => ['201', '503'].includes(status))).toBe(true);
    console.log(
      `terminate ${killed} connections: ${JSON.stringify(counts)}; first 201 ${Math.round(recovered.at - killedAt)} ms after`,
    );
    await expectStored(answers);
  });

  test('too many clients (every slot of max_connections taken): 503s, then 201s once freed', async () => {
    // 10 slots, of which superuser_reserved_connections keeps 3 for psql: 7 for ordinary roles.
    await start(10);
    await postgres.psql('CREATE ROLE hog LOGIN');
    const load = startCreateLoad(server.url, credential);
    await load.next(201, 0, 10_000);
    const hogs: pg.Client[] = [];
    /**
     * Opens connections as another role, several at once so as to beat the server's reconnects,
     * until PostgreSQL refuses them for too many clients.
     */
    const fillSlots = async () => {
      for (;;) {
        const wave = Array.from(
          { length: 4 },
          () => new pg.Client({ connectionString: postgres.url.replace('postgres@', 'hog@') }),
        );
        const outcomes = await Promise.allSettled(wave.map((client) => client.connect()));
        let full = false;
        outcomes.forEach((outcome, index) => {
          if (outcome.status === 'fulfilled') hogs.push(wave[index] as pg.Client);
          else {
            expect((outcome.reason as { code?: string }).code).toBe('53300');
            full = true;
          }
        });
        if (full) return;
      }
    };
    // The superuser's own connection (a reserved slot) kills the server's connections, and the
    // others take the slots they free, until they hold them all: the server races to reconnect.
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    const faultAt = performance.now();
    try {
      for (let attempt = 1; ; attempt++) {
        await fillSlots();
        const { rows } = await admin.query<{ held: number }>(
          `SELECT count(pg_terminate_backend(pid))::int AS held FROM pg_stat_activity WHERE usename = 'app'`,
        );
        if (rows[0]?.held === 0) break;
        if (attempt === 50) throw new Error('the server kept a connection: the fault was not made');
      }
    } finally {
      await admin.end();
    }
    const refused = await load.next(503, faultAt, 5_000);
    expect(refused.problemType).toBe('urn:institution-api:problem:unavailable');
    // The slots stay taken until the server has logged the outage.
    await waitForOutageLog(server, 'began');
    await Promise.all(hogs.map((client) => client.end()));
    const freed = performance.now();
    const recovered = await load.next(201, freed, recoveryBoundMs);
    // The end of the outage is logged once the database has answered for outageQuietMs.
    await waitForOutageLog(server, 'ended');
    const answers = await load.stop();
    const counts = expectOnlyUnavailable(answers);
    console.log(
      `too many clients: ${JSON.stringify(counts)}; first 201 ${Math.round(recovered.at - freed)} ms after the slots were freed`,
    );
    await expectStored(answers);
    await expectOutageLogged(answers);
  });

  test('a lock held past the statement bound (5 s): 503, not a request that waits for ever', async () => {
    await start();
    const load = startCreateLoad(server.url, credential, 2);
    await load.next(201, 0, 10_000);
    const locker = new pg.Client({ connectionString: postgres.url.replace(/\/postgres$/, '/app') });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE users IN ACCESS EXCLUSIVE MODE');
      const lockedAt = performance.now();
      const refused = await load.next(503, lockedAt, 8_000);
      const waited = refused.at - lockedAt;
      expect(refused.problemType).toBe('urn:institution-api:problem:unavailable');
      expect(waited).toBeGreaterThan(4_000);
      console.log(`lock held: first 503 after ${Math.round(waited)} ms`);
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
    await load.next(201, performance.now(), recoveryBoundMs);
    const answers = await load.stop();
    expectOnlyUnavailable(answers);
    await expectStored(answers);
  });
});
