/**
 * The embedded SQLite database serves one server process (spec Assumptions, "Several processes"): a
 * second server on the same file refuses to start with one line naming PostgreSQL, the commands
 * still work beside the running server, and the lock dies with its process, SIGKILL included.
 */
import { execFile as execFileCallback, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { signedRequest } from '@institution-api/test-support/signed-request';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openStorage } from '../../src/storage/open-storage.js';
import { DatabaseInUseError } from '../../src/storage/sqlite-server-lock.js';
import { type BuiltServer, mainJs, startBuiltServer } from '../crash/built-server.js';

const execFile = promisify(execFileCallback);
const credentialsCommandJs = fileURLToPath(
  new URL('../../dist/credentials/credentials-command.js', import.meta.url),
);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reference-server-one-server-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** `node dist/main.js` on `databaseUrl`, expected to stop at once: its exit code and stderr. */
function startRefused(databaseUrl: string) {
  const result = spawnSync(process.execPath, [mainJs], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: result.status, stderr: result.stderr };
}

/** A signed create of one fixed person, as `credential`. */
async function create(baseUrl: string, credential: { publicKey: string; secretKey: string }) {
  const request = signedRequest('POST', `${baseUrl}/api/v1/external/users`, credential, {
    body: {
      email: 'ama.lock@example.com',
      firstName: 'Ama',
      lastName: 'Lock',
      mobileNumber: '0241234567',
      ghanaCardNumber: 'GHA-123123123-1',
      monthlyIncome: 10,
    },
    messageSignature: false,
  });
  const answer = await fetch(request.url, request);
  return { status: answer.status, id: ((await answer.json()) as { id?: string }).id };
}

describe('one server process per embedded database', () => {
  test('a second server is refused with one line naming PostgreSQL; the commands still work; after a SIGKILL a new server starts', async () => {
    let first: BuiltServer | undefined = await startBuiltServer({ DATABASE_URL: dir });
    let again: BuiltServer | undefined;
    try {
      // By the directory, and by the file it holds: the same database.
      for (const url of [dir, join(dir, 'reference-server.sqlite')]) {
        const refused = startRefused(url);
        expect(refused.status).toBe(1);
        expect(refused.stderr.trimEnd().split('\n')).toEqual([
          `reference-server: Another reference server is already running on ${join(dir, 'reference-server.sqlite')}: the embedded SQLite database serves one server process. To run several processes as one service, give them all one PostgreSQL (DATABASE_URL=postgres://…).`,
        ]);
      }

      // `credentials issue` opens the database beside the running server (its writes take turns
      // with the server's), and the server accepts the pair it issued.
      const issued = await execFile(
        process.execPath,
        [credentialsCommandJs, 'issue', '--institution', 'Lock Test Bank'],
        { env: { PATH: process.env.PATH ?? '', DATABASE_URL: dir } },
      );
      const credential = JSON.parse(issued.stdout) as { publicKey: string; secretKey: string };
      const created = await create(first.baseUrl, credential);
      expect(created.status).toBe(201);

      first.child.kill('SIGKILL');
      expect(await first.exited).toBe('SIGKILL');
      first = undefined;
      again = await startBuiltServer({ DATABASE_URL: dir });
      expect(await create(again.baseUrl, credential)).toEqual({ status: 200, id: created.id });
    } finally {
      for (const server of [first, again]) {
        if (server && server.child.exitCode === null && server.child.signalCode === null) {
          server.child.kill('SIGTERM');
          await server.exited;
        }
      }
    }
  });

  test('the lock is released when the storage closes, and not taken for a database in memory', async () => {
    const file = join(dir, 'released.sqlite');
    const options = { defaultDataDir: '/nonexistent', asTheOneServer: true };
    const storage = await openStorage(file, options);
    await expect(openStorage(file, options)).rejects.toBeInstanceOf(DatabaseInUseError);
    // Without the option (the commands), the database opens beside the server.
    const command = await openStorage(file, { defaultDataDir: '/nonexistent' });
    await command.close();
    await storage.close();
    await (await openStorage(file, options)).close();

    const one = await startBuiltServer({ DATABASE_URL: 'memory://' });
    const two = await startBuiltServer({ DATABASE_URL: 'memory://' });
    for (const server of [one, two]) {
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    }
  });
});
