/**
 * `institution-api mcp --http` checked by the MCP project's own conformance suite
 * (`@modelcontextprotocol/conformance`, its `conformance server` CLI), scenario by scenario: the
 * initialization handshake, ping, the tool list, and DNS rebinding protection (a non-localhost
 * `Host`/`Origin` gets a 4xx, a localhost one a 2xx). System tier: it runs another program.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import {
  type ListeningProcess,
  startListeningProcess,
} from '@institution-api/test-support/listening-process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../../bin/institution-api.js', import.meta.url));
const require = createRequire(import.meta.url);
/** The suite's CLI, the file its package's `bin` names. */
const conformance = require.resolve('@modelcontextprotocol/conformance/dist/index.js');

let mcp: ListeningProcess;
let workDir: string;
beforeAll(async () => {
  // The scenarios call no tool, so no service answers; the keys must be there all the same.
  mcp = await startListeningProcess([bin, 'mcp', '--http'], {
    PATH: process.env.PATH,
    INSTITUTION_API_URL: 'http://127.0.0.1:9',
    INSTITUTION_PUBLIC_KEY: 'pk_mcp_conformance',
    INSTITUTION_SECRET_KEY: 'sk_mcp_conformance_never_shown',
  });
  // The suite may write its results under its working directory.
  workDir = await mkdtemp(join(tmpdir(), 'mcp-conformance-'));
});
afterAll(async () => {
  await mcp?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

/** Runs one scenario; resolves with its exit code and what it printed. */
function runScenario(scenario: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [conformance, 'server', '--url', mcp.url, '--scenario', scenario],
      { cwd: workDir, timeout: 120_000, env: { PATH: process.env.PATH, NO_COLOR: '1' } },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, output: `${stdout}${stderr}` });
      },
    );
  });
}

describe('the MCP conformance suite against mcp --http', () => {
  it.each([
    { scenario: 'server-initialize', checks: ['server-initialize'] },
    { scenario: 'ping', checks: ['ping'] },
    { scenario: 'tools-list', checks: ['tools-list'] },
    {
      scenario: 'dns-rebinding-protection',
      checks: ['localhost-host-rebinding-rejected', 'localhost-host-valid-accepted'],
    },
  ])('passes $scenario', { timeout: 180_000 }, async ({ scenario, checks }) => {
    const { code, output } = await runScenario(scenario);
    // Colours stripped, whatever the suite decides about NO_COLOR.
    const text = stripVTControlCharacters(output);
    expect(text, text).toContain(`Passed: ${checks.length}/${checks.length}, 0 failed`);
    for (const check of checks) expect(text).toMatch(new RegExp(`\\[${check}\\s*\\] SUCCESS`));
    expect(code, text).toBe(0);
  });
});
