import { describe, expect, it } from 'vitest';
import { ownsProcess, WORKER_HEAP } from '../../src/import/worker.js';

describe('the import in a worker', () => {
  it("runs there only for the process's own command line, not for a program or a test", () => {
    const io = { env: process.env, stdout: () => {}, stderr: () => {} };
    expect(ownsProcess(io)).toBe(true);
    expect(ownsProcess({ ...io, env: { ...process.env } })).toBe(false);
    expect(ownsProcess({ ...io, fetch: (input, init) => fetch(input, init) })).toBe(false);
  });

  it('bounds both generations of its heap', () => {
    expect(WORKER_HEAP.maxYoungGenerationSizeMb).toBeLessThanOrEqual(16);
    expect(WORKER_HEAP.maxOldGenerationSizeMb).toBeLessThanOrEqual(160);
  });
});
