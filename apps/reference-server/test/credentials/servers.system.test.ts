/**
 * The key lifecycle as an operator lives it (spec Assumptions, "Key lifecycle"): two built server processes on one
 * PostgreSQL, and the built credentials command run beside them. A rotation end to end, a
 * revocation refused by each process within the credential cache's bound with the very 401 of an
 * unknown key, a revoked key that INSTITUTION_CREDENTIALS names staying refused across a restart,
 * and the starts refused without a key or with a wrong one. The timings are printed; the
 * assertions allow the bound plus a margin for a loaded machine, nothing tighter.
 */
import { execFile as execFileCallback, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { RunningPostgres } from '@institution-api/test-support/postgres';
import { startPostgresDatabase } from '@institution-api/test-support/postgres-database';
import {
  type Credential,
  type RunningServer,
  referenceServerMain,
  startReferenceServer,
  testCredentialsEncryptionKey,
} from '@institution-api/test-support/reference-server';
import { describeWith } from '@institution-api/test-support/requirements';
import { type KeyPair, signedRequest } from '@institution-api/test-support/signed-request';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { credentialTtlMs } from '../../src/credentials/credential-cache.js';

const execFile = promisify(execFileCallback);
const commandJs = fileURLToPath(
  new URL('../../dist/credentials/credentials-command.js', import.meta.url),
);

/** Room for a loaded machine beyond the bound: the polls, a busy event loop. */
const marginMs = 5_000;

const provisioned: Credential = {
  institution: 'Provisioned Savings',
  publicKey: `pk_provisioned_${randomBytes(4).toString('hex')}`,
  secretKey: randomBytes(24).toString('base64url'),
};

/** An update of a user nobody has: 404 once authenticated, 401 when the key is refused. */
const nobody = randomUUID();
const probeBody = JSON.stringify({
  email: 'probe@example.com',
  firstName: 'Probe',
  lastName: 'Key',
  mobileNumber: '0241234567',
  ghanaCardNumber: 'GHA-123456789-0',
  monthlyIncome: 0,
});

async function probe(server: RunningServer, key: KeyPair) {
  const request = signedRequest('PUT', `${server.url}/api/v1/external/users/${nobody}`, key, {
    body: probeBody,
    headers: { 'x-request-id': 'probe' },
    messageSignature: false,
  });
  const answer = await fetch(request.url, request);
  const headers = [...answer.headers.entries()].filter(([name]) => name !== 'date');
  return { status: answer.status, text: await answer.text(), headers };
}

/** Probes `server` until it answers 401 or `limitMs` passes; ms from `since` to the first 401. */
async function msUntilRefused(
  server: RunningServer,
  key: KeyPair,
  since: number,
  limitMs: number,
): Promise<number> {
  for (;;) {
    const { status } = await probe(server, key);
    const elapsed = performance.now() - since;
    if (status === 401) return elapsed;
    expect(status).toBe(404);
    if (elapsed > limitMs) return elapsed;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describeWith(
  'postgres',
  'the key lifecycle on two servers sharing one PostgreSQL',
  { timeout: 120_000 },
  () => {
    let postgres: RunningPostgres;
    let servers: RunningServer[] = [];
    const serverEnv = { LOG_LEVEL: 'info' };

    /** The built command on the servers' database, as the operator runs it. */
    const credentials = async (...args: string[]) => {
      try {
        const { stdout, stderr } = await execFile(process.execPath, [commandJs, ...args], {
          env: {
            ...process.env,
            DATABASE_URL: postgres.url,
            CREDENTIALS_ENCRYPTION_KEY: testCredentialsEncryptionKey,
            LOG_LEVEL: 'warn',
          },
        });
        return { code: 0, stdout, stderr };
      } catch (error) {
        const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
        return { code, stdout, stderr };
      }
    };

    const startServer = () =>
      startReferenceServer({
        credentials: [provisioned],
        databaseUrl: postgres.url,
        env: serverEnv,
      });

    beforeAll(async () => {
      postgres = await startPostgresDatabase();
      // One at a time, so that both provision into a database already migrated; then side by side.
      servers = [await startServer()];
      servers.push(await startServer());
    }, 120_000);
    afterAll(async () => {
      await Promise.all(servers.map((server) => server.stop()));
      await postgres?.stop();
    });

    test('a rotation: the old key works through the grace and is refused after it, the new key throughout', async () => {
      const issued = await credentials('issue', '--institution', 'Rotating Bank');
      const old = JSON.parse(issued.stdout);
      for (const server of servers) expect((await probe(server, old)).status).toBe(404);

      const graceMs = 5_000;
      const rotatedAt = performance.now();
      const rotated = await credentials(
        'rotate',
        '--institution',
        'Rotating Bank',
        '--grace',
        '5s',
      );
      expect(rotated.code).toBe(0);
      const fresh = JSON.parse(rotated.stdout);
      expect(fresh.others).toEqual([{ publicKey: old.publicKey, expiresAt: expect.any(String) }]);

      const seen: { server: number; ms: number; old: number; fresh: number }[] = [];
      for (;;) {
        for (const [index, server] of servers.entries()) {
          const oldStatus = (await probe(server, old)).status;
          // When its answer was back: the server judged the old key before this.
          const ms = performance.now() - rotatedAt;
          const freshStatus = (await probe(server, fresh)).status;
          seen.push({ server: index, ms, old: oldStatus, fresh: freshStatus });
        }
        if (seen.slice(-2).every((probe) => probe.old === 401)) break;
        if (performance.now() - rotatedAt > graceMs + credentialTtlMs + marginMs) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      // The new key, throughout, on both servers.
      expect(seen.every((probe) => probe.fresh === 404)).toBe(true);
      // The old key, through the grace: it expires 5 s after the command read the clock, which
      // was after `rotatedAt`, so every answer back before 5 s from then was judged in the grace.
      const duringGrace = seen.filter((probe) => probe.ms < graceMs - 200);
      expect(duringGrace.every((probe) => probe.old === 404)).toBe(true);
      expect(duringGrace.length).toBeGreaterThan(4);
      // And refused after it, by both.
      const refusedAt = [0, 1].map(
        (index) => seen.find((probe) => probe.server === index && probe.old === 401)?.ms,
      );
      expect(
        refusedAt.every((ms) => ms !== undefined && ms < graceMs + credentialTtlMs + marginMs),
      ).toBe(true);
      console.log(
        `rotation with a 5 s grace: the old key refused ${refusedAt.map((ms) => `${Math.round(ms ?? -1)} ms`).join(' and ')} after the rotate command started (servers 1 and 2); the new key accepted in all ${seen.length} probes`,
      );
    });

    test('a revocation is refused by each server within the bound, with the very 401 of an unknown key', async () => {
      const key = JSON.parse((await credentials('issue', '--institution', 'Revoked Bank')).stdout);
      // Both servers have the key in their cache: the worst case for the bound.
      for (const server of servers) expect((await probe(server, key)).status).toBe(404);

      const started = performance.now();
      const revoked = await credentials('revoke', key.publicKey, '--reason', 'leaked in a ticket');
      const committed = performance.now();
      expect(revoked.code).toBe(0);
      const limitMs = credentialTtlMs + marginMs;
      const refusedAfter = await Promise.all(
        servers.map((server) => msUntilRefused(server, key, committed, limitMs)),
      );
      console.log(
        `revocation: refused by server 1 after ${Math.round(refusedAfter[0] ?? -1)} ms, by server 2 after ${Math.round(refusedAfter[1] ?? -1)} ms (from the command's exit; the command itself took ${Math.round(committed - started)} ms; bound ${credentialTtlMs} ms)`,
      );
      for (const ms of refusedAfter) expect(ms).toBeLessThan(limitMs);

      const unknown = {
        publicKey: `pk_unknown_${randomBytes(4).toString('hex')}`,
        secretKey: 'sk_guess_0123456789abcdef',
      };
      for (const server of servers) {
        const [refused, never] = [await probe(server, key), await probe(server, unknown)];
        expect(refused.status).toBe(401);
        expect(refused.text).toBe(never.text);
        expect(refused.headers).toEqual(never.headers);
      }
    });

    test('a revoked key that INSTITUTION_CREDENTIALS names stays refused across a restart: skipped, with one warning naming it', async () => {
      for (const server of servers) expect((await probe(server, provisioned)).status).toBe(404);
      expect((await credentials('revoke', provisioned.publicKey)).code).toBe(0);
      const [first, second] = servers;
      if (!first || !second) throw new Error('two servers');
      await first.stop();
      const restarted = await startServer();
      servers = [restarted, second];

      expect((await probe(restarted, provisioned)).status).toBe(401);
      const warnings = restarted
        .output()
        .split('\n')
        .filter((line) => line.includes(provisioned.publicKey) && line.includes('"level":"warn"'));
      expect(warnings).toHaveLength(1);
      expect(JSON.parse(warnings[0] ?? '{}')).toMatchObject({
        event: 'provision-skipped',
        publicKey: provisioned.publicKey,
        actor: 'start',
        msg: `INSTITUTION_CREDENTIALS names ${provisioned.publicKey}, which stays refused (${JSON.parse(warnings[0] ?? '{}').reason})`,
      });
      expect(restarted.output()).not.toContain(provisioned.secretKey);
      const log = JSON.parse(
        (await credentials('log', '--json', '--institution', provisioned.institution)).stdout,
      );
      expect(
        log.map((event: { what: string; actor: string }) => [event.what, event.actor]),
      ).toEqual([
        ['provisioned', 'start'],
        ['revoked', expect.any(String)],
        ['provision-skipped', 'start'],
      ]);
    });

    test('a start without a key, or with a wrong one, is refused in one line, no stack trace', async () => {
      const start = (key: string | undefined) =>
        new Promise<{ code: number | null; stderr: string }>((resolve) => {
          const child = spawn(process.execPath, [referenceServerMain()], {
            env: {
              PATH: process.env.PATH ?? '',
              PORT: '0',
              DATABASE_URL: postgres.url,
              ...(key === undefined ? {} : { CREDENTIALS_ENCRYPTION_KEY: key }),
            },
            stdio: ['ignore', 'ignore', 'pipe'],
          });
          let stderr = '';
          child.stderr.on('data', (chunk) => {
            stderr += chunk;
          });
          child.once('exit', (code) => resolve({ code, stderr }));
        });
      const none = await start(undefined);
      expect(none).toEqual({
        code: 1,
        stderr:
          'reference-server: Invalid configuration: CREDENTIALS_ENCRYPTION_KEY is required with PostgreSQL (every server process and the credentials command on one database need the same key): make one with `openssl rand -base64 32`.\n',
      });
      const wrong = await start(randomBytes(32).toString('base64'));
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toMatch(
        /^reference-server: The stored secret keys are encrypted with key id [0-9a-f]{16}, but CREDENTIALS_ENCRYPTION_KEY has key id [0-9a-f]{16}: start with the key they were encrypted with \(to change keys, give the old one as CREDENTIALS_ENCRYPTION_KEY_PREVIOUS and run `credentials reencrypt`\)\.\n$/,
      );
      console.log(`the start without a key: ${none.stderr.trimEnd()}`);
    });
  },
);
