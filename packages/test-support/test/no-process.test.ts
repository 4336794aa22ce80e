/**
 * The fast tier's guard (src/no-process.ts, a setup file of every workspace's fast tier through
 * testTiers): starting a process from a fast test fails it, whichever way it is started.
 */
import * as childProcess from 'node:child_process';
import { execFile, execFileSync, spawn, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

describe('the fast tier', () => {
  it.each([
    ['execFileSync', () => execFileSync(process.execPath, ['--version'])],
    ['execFile', () => execFile(process.execPath, ['--version'])],
    ['spawn', () => spawn(process.execPath, ['--version'])],
    ['spawnSync', () => spawnSync(process.execPath, ['--version'])],
    ['exec (from the module object)', () => childProcess.exec('node --version')],
    ['fork', () => childProcess.fork('./nothing.js')],
  ])('refuses to start a process with %s, saying where the test belongs', (_, start) => {
    expect(start).toThrow(
      /^The fast tier starts no process, but a test called child_process\.\w+\(.*\*\.system\.test\.ts/,
    );
  });
});
