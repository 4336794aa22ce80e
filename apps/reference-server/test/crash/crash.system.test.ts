import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signedRequest } from '@institution-api/test-support/signed-request';
import { waitFor } from '@institution-api/test-support/wait-for';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type BuiltServer, startBuiltServer } from './built-server.js';

const credential = {
  institution: 'Crash Test Credit Union',
  publicKey: 'pk_crash_test',
  secretKey: 'sk_crash_test_0123456789abcdef',
};
const loops = 8;
/**
 * The kill comes once this many creates are acknowledged, whatever the machine's speed: each is
 * checked after the restart, so their number must not grow with how fast the machine is.
 */
const killAfterCreates = 500;

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'reference-server-crash-'));
});
afterAll(async () => {
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

function start(): Promise<BuiltServer> {
  return startBuiltServer({
    DATABASE_URL: dataDir,
    INSTITUTION_CREDENTIALS: JSON.stringify([credential]),
  });
}

/** A distinct create body for loop `loop`, request `n`. */
function body(loop: number, n: number) {
  return {
    email: `crash.${loop}.${n}@example.com`,
    firstName: 'Crash',
    lastName: `Loop ${loop}`,
    mobileNumber: '0241234567',
    ghanaCardNumber: `GHA-${String(loop).padStart(2, '0')}${String(n).padStart(7, '0')}-${n % 10}`,
    monthlyIncome: n,
    accountType: 'MOMO',
    accountNumber: '0551234567',
    accountName: 'Crash Loop',
    network: 'MTN',
  };
}

async function create(baseUrl: string, user: object): Promise<Response> {
  const request = signedRequest('POST', `${baseUrl}/api/v1/external/users`, credential, {
    body: user,
    messageSignature: false,
  });
  return fetch(request.url, request);
}

test('every create acknowledged (201) before a SIGKILL is there after a restart', async () => {
  const first = await start();
  const acknowledged: { user: object; id: string }[] = [];
  let killed = false;
  const writer = async (loop: number) => {
    for (let n = 1; !killed; n++) {
      const user = body(loop, n);
      try {
        const answer = await create(first.baseUrl, user);
        if (answer.status !== 201) throw new Error(`create answered ${answer.status}`);
        const { id } = (await answer.json()) as { id: string };
        // The kill may land between the answer and here: the answer was received, so it counts.
        acknowledged.push({ user, id });
      } catch (error) {
        if (killed) return;
        throw error;
      }
    }
  };
  const writers = Array.from({ length: loops }, (_, loop) => writer(loop));
  const started = performance.now();
  await waitFor(() => acknowledged.length >= killAfterCreates, {
    timeoutMs: 60_000,
    intervalMs: 10,
    message: () => `${killAfterCreates} creates acknowledged (${acknowledged.length} so far)`,
  });
  const killAfterMs = Math.round(performance.now() - started);
  killed = true;
  first.child.kill('SIGKILL');
  expect(await first.exited).toBe('SIGKILL');
  await Promise.all(writers);

  const second = await start();
  try {
    let found = 0;
    const lost: string[] = [];
    for (const { user, id } of acknowledged) {
      const answer = await create(second.baseUrl, user);
      const again = (await answer.json()) as { id: string };
      if (answer.status === 200 && again.id === id) found++;
      else lost.push(`${id}: ${answer.status}`);
    }
    console.log(
      `crash test: ${acknowledged.length} creates acknowledged in ${killAfterMs} ms by ${loops} loops ` +
        `before SIGKILL; ${found} found after the restart`,
    );
    expect(acknowledged.length).toBeGreaterThan(loops);
    expect(lost).toEqual([]);
    expect(found).toBe(acknowledged.length);
  } finally {
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  }
}, 120_000);
