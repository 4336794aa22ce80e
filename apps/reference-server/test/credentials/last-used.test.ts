import { expect, test } from 'vitest';
import { lastUsedIntervalMs, lastUsedRecorder } from '../../src/credentials/last-used.js';

test('writes a key at its first use, then again only once a minute has passed, per key', async () => {
  const writes: string[] = [];
  let clock = 0;
  const used = lastUsedRecorder(
    { recordCredentialUse: async (publicKey) => void writes.push(publicKey) },
    { now: () => clock },
  );
  for (let i = 0; i < 100; i++) used('pk_a');
  used('pk_b');
  clock = lastUsedIntervalMs - 1;
  used('pk_a');
  expect(writes).toEqual(['pk_a', 'pk_b']);
  clock = lastUsedIntervalMs;
  used('pk_a');
  used('pk_b');
  expect(writes).toEqual(['pk_a', 'pk_b', 'pk_a', 'pk_b']);
  expect(lastUsedIntervalMs).toBe(60_000);
});

test('a failed write, thrown or rejected, goes to onError and nowhere else', async () => {
  const errors: unknown[] = [];
  const rejecting = lastUsedRecorder(
    { recordCredentialUse: () => Promise.reject(new Error('down')) },
    { onError: (error) => errors.push(error) },
  );
  const throwing = lastUsedRecorder(
    {
      recordCredentialUse: () => {
        throw new Error('closed');
      },
    },
    { onError: (error) => errors.push(error) },
  );
  expect(() => rejecting('pk_a')).not.toThrow();
  expect(() => throwing('pk_a')).not.toThrow();
  await new Promise((resolve) => setImmediate(resolve));
  expect(errors.map((error) => (error as Error).message).sort()).toEqual(['closed', 'down']);
});
