/**
 * The embedded database on a full disk under load (spec Assumptions, "500 or 503"): every create refused meanwhile is a
 * 503 `unavailable` with `Retry-After` (never a 500), creates succeed again within 2 s of space
 * being freed without restarting the server, and after a restart every acknowledged create is
 * there. The full disk is a tmpfs, which only root may mount: elsewhere the test is skipped
 * and says so (CI runs as root). The disk is 32 MiB, filled to the last byte by a file; deleting
 * that file frees room for the rest of the test's creates.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, writeSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import {
  type Credential,
  type RunningServer,
  startReferenceServer,
} from '@institution-api/test-support/reference-server';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { countByStatus, startCreateLoad } from './load.js';
import { waitForOutageLog } from './outage-logged.js';

const recoveryBoundMs = 2_000;

/** Mounts a tmpfs of `size` at a new directory, or says why it cannot. */
function mountTmpfs(dir: string, size: string): string | undefined {
  if (process.getuid?.() !== 0) return 'mounting a tmpfs (a small, fillable disk) needs root';
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
    return undefined;
  } catch (error) {
    return `mount -t tmpfs failed: ${String((error as { stderr?: Buffer }).stderr ?? error).trim()}`;
  }
}

const credential: Credential = {
  institution: 'Full Disk Savings',
  publicKey: `pk_disk_${randomBytes(4).toString('hex')}`,
  secretKey: randomBytes(24).toString('base64url'),
};

let dir = '';
let cannotMount: string | undefined;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reference-server-full-disk-'));
  cannotMount = mountTmpfs(dir, '32m');
  if (cannotMount) console.warn(`full-disk test skipped: ${cannotMount}`);
});
afterAll(async () => {
  if (!cannotMount) execFileSync('umount', [dir]);
  await rm(dir, { recursive: true, force: true });
});

/** Writes zeros to `file` until the file system refuses (ENOSPC). */
function fillDisk(file: string): number {
  const fd = openSync(file, 'w');
  const chunk = Buffer.alloc(64 * 1024);
  let written = 0;
  try {
    for (;;) written += writeSync(fd, chunk);
  } catch (error) {
    if ((error as { code?: string }).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
  return written;
}

describe('the embedded database on a full disk', { timeout: 90_000 }, () => {
  test('refused creates are 503s; space freed, 201s within 2 s; after a restart nothing is lost', async (context) => {
    if (cannotMount) return context.skip(cannotMount);
    const dataDir = join(dir, 'data');
    const start = () =>
      startReferenceServer({
        credentials: [credential],
        databaseUrl: dataDir,
        env: { LOG_LEVEL: 'info' },
      });
    let server: RunningServer = await start();
    try {
      const load = startCreateLoad(server.url, credential);
      await load.next(201, 0, 10_000);
      const filler = join(dir, 'filler');
      const fullAt = performance.now();
      fillDisk(filler);
      const refused = await load.next(503, fullAt, 10_000);
      expect(refused.retryAfter).toBe('1');
      expect(refused.problemType).toBe('urn:institution-api:problem:unavailable');
      // The disk stays full until the server has logged the outage.
      await waitForOutageLog(server, 'began');
      await rm(filler);
      const freed = performance.now();
      const recovered = await load.next(201, freed, recoveryBoundMs);
      // The end of the outage is logged once the database has answered for outageQuietMs.
      await waitForOutageLog(server, 'ended');
      const answers = await load.stop();
      const counts = countByStatus(answers);
      expect(Object.keys(counts).sort(), JSON.stringify(counts)).toEqual(['201', '503']);
      for (const answer of answers.filter((a) => a.status === 503)) {
        expect(answer.problemType).toBe('urn:institution-api:problem:unavailable');
      }
      console.log(
        `full disk: ${JSON.stringify(counts)}; first 201 ${Math.round(recovered.at - freed)} ms after space was freed`,
      );
      // Its log lines are written in batches, the last at exit.
      await server.stop();
      const log = server.output();
      expect(log.match(/"level":"error"[^\n]*"database unavailable/g)).toHaveLength(1);
      expect(log.match(/"level":"info"[^\n]*"database available again"/g)).toHaveLength(1);
      expect(log).not.toMatch(/"request failed"/);

      server = await start();
      await server.stop();
      const db = new DatabaseSync(join(dataDir, 'reference-server.sqlite'), { readOnly: true });
      try {
        const ids = answers.filter((a) => a.status === 201).map((a) => a.id as string);
        // One parameter, a JSON array, whatever the number of ids the load made (SQLite takes
        // at most 32,766 parameters in a statement).
        const stored = db
          .prepare('SELECT count(*) AS n FROM users WHERE id IN (SELECT value FROM json_each(?))')
          .get(JSON.stringify(ids)) as { n: number };
        expect(stored.n).toBe(ids.length);
      } finally {
        db.close();
      }
    } finally {
      await server.stop();
    }
  });
});
