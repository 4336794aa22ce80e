import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { outageLog, outageQuietMs } from '../../src/storage/health/outage-log.js';
import { StorageUnavailableError } from '../../src/storage/health/unavailable.js';

function setUp() {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({
    level: 'debug',
    destination: { write: (line: string) => void lines.push(JSON.parse(line)) },
  });
  let clock = 0;
  const log = outageLog(logger, () => clock);
  const fault = new StorageUnavailableError('the disk is full', {
    cause: Object.assign(new Error('database or disk is full'), { code: 'ERR_SQLITE_ERROR' }),
  });
  return {
    lines,
    log,
    fault,
    at: (ms: number) => {
      clock = ms;
    },
  };
}

describe('outageLog', () => {
  it('logs one error when an outage starts and one info when it ends, whatever the count', () => {
    const { lines, log, fault, at } = setUp();
    log.available();
    for (let ms = 0; ms < 500; ms += 10) {
      at(ms);
      log.unavailable(fault, 'createOrAddUser');
      // Requests sharing one failed call (the credential lookup) are each a refused request.
      log.refusedRequest();
      log.refusedRequest();
    }
    log.unavailable(fault, 'ping');
    at(2_000);
    log.available();
    log.available();
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      ['error', 'database unavailable: requests are answered 503 until it recovers'],
      ['info', 'database available again'],
    ]);
    expect(lines[0]).toMatchObject({
      reason: 'the disk is full',
      cause: 'database or disk is full',
    });
    expect(lines[0]).not.toHaveProperty('err');
    expect(lines[1]).toMatchObject({
      durationMs: 2_000,
      refusedRequests: 100,
      failedHealthChecks: 1,
    });
  });

  it('counts successes between failures as part of the outage until it has been quiet (databaseUp false until then)', () => {
    const { lines, log, fault, at } = setUp();
    expect(log.databaseUp()).toBe(true);
    log.unavailable(fault, 'updateUser');
    expect(log.databaseUp()).toBe(false);
    log.refusedRequest();
    at(outageQuietMs - 1);
    log.available();
    expect(log.databaseUp()).toBe(false);
    at(outageQuietMs);
    log.unavailable(fault, 'updateUser');
    log.refusedRequest();
    at(2 * outageQuietMs - 1);
    log.available();
    expect(lines).toHaveLength(1);
    expect(log.databaseUp()).toBe(false);
    at(2 * outageQuietMs);
    log.available();
    expect(lines).toHaveLength(2);
    expect(log.databaseUp()).toBe(true);
    expect(lines[1]).toMatchObject({ refusedRequests: 2, durationMs: 2 * outageQuietMs });
  });
});
