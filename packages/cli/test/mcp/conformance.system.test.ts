/**
 * `institution-api mcp --http` checked by the MCP project's own conformance suite
 * (`@modelcontextprotocol/conformance`, its `conformance server` CLI), scenario by scenario, on
 * protocol 2025-11-25 (the initialization handshake, sessions, ping, the tool and resource
 * lists, DNS rebinding protection) and on 2026-07-28 (stateless requests and `server/discover`,
 * the `Mcp-Method`/`Mcp-Name` headers, a missing resource, the lists, DNS rebinding). The suite
 * sends no credential, so it reaches the server through a proxy of this test that adds the
 * bearer token and changes nothing else (`Host` and `Origin` pass as the suite sent them; the
 * server answers the proxy's names by `--allow-host`). A check the suite can only make with a
 * diagnostic tool of its own reference server (`test_missing_capability`, `test_logging_tool`…)
 * reports "Not testable" as a failure; those, and only those, are listed as not applicable.
 * System tier: it runs another program.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
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
const token = 'tok_conformance_0123456789abcdef';

let mcp: ListeningProcess;
let proxy: Server;
let proxyUrl: string;
let workDir: string;
beforeAll(async () => {
  let target: URL | undefined;
  // Forwards each request as it came, with the bearer token added.
  proxy = createServer((incoming, outgoing) => {
    if (target === undefined) return outgoing.writeHead(503).end();
    const forward = request(
      {
        hostname: target.hostname,
        port: target.port,
        path: incoming.url,
        method: incoming.method,
        headers: { ...incoming.headers, authorization: `Bearer ${token}` },
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forward.on('error', () => outgoing.destroy());
    incoming.pipe(forward);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const { port } = proxy.address() as AddressInfo;
  proxyUrl = `http://localhost:${port}/mcp`;
  // The scenarios call no tool, so no service answers; the keys must be there all the same.
  mcp = await startListeningProcess(
    [
      bin,
      'mcp',
      '--http',
      '--allow-host',
      `localhost:${port}`,
      '--allow-host',
      `127.0.0.1:${port}`,
    ],
    {
      PATH: process.env.PATH,
      INSTITUTION_API_URL: 'http://127.0.0.1:9',
      INSTITUTION_PUBLIC_KEY: 'pk_mcp_conformance',
      INSTITUTION_SECRET_KEY: 'sk_mcp_conformance_never_shown',
      INSTITUTION_MCP_TOKEN: token,
    },
  );
  target = new URL(mcp.url);
  // The suite may write its results under its working directory.
  workDir = await mkdtemp(join(tmpdir(), 'mcp-conformance-'));
});
afterAll(async () => {
  await mcp?.stop();
  await new Promise((resolve) => proxy?.close(resolve));
  proxy?.closeAllConnections();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

/** Runs one scenario at one revision; resolves with its exit code and what it printed. */
function runScenario(
  scenario: string,
  revision: string,
): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [
        conformance,
        'server',
        '--url',
        proxyUrl,
        '--scenario',
        scenario,
        '--spec-version',
        revision,
      ],
      { cwd: workDir, timeout: 120_000, env: { PATH: process.env.PATH, NO_COLOR: '1' } },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, output: `${stdout}${stderr}` });
      },
    );
  });
}

/** The checks of `server-stateless` that need the suite's own diagnostic tools. */
const needDiagnosticTools = [
  'sep-2575-http-server-no-independent-requests-on-stream',
  'sep-2575-missing-capability-http-400',
  'sep-2575-server-no-log-without-loglevel',
  'sep-2575-server-rejects-undeclared-capability',
];

describe('the MCP conformance suite against mcp --http', () => {
  it.each([
    { revision: '2025-11-25', scenario: 'server-initialize' },
    { revision: '2025-11-25', scenario: 'server-session-lifecycle' },
    { revision: '2025-11-25', scenario: 'ping' },
    { revision: '2025-11-25', scenario: 'tools-list' },
    { revision: '2025-11-25', scenario: 'resources-list' },
    { revision: '2025-11-25', scenario: 'dns-rebinding-protection' },
    { revision: '2026-07-28', scenario: 'server-stateless', notApplicable: needDiagnosticTools },
    { revision: '2026-07-28', scenario: 'tools-list' },
    { revision: '2026-07-28', scenario: 'resources-list' },
    { revision: '2026-07-28', scenario: 'http-header-validation' },
    { revision: '2026-07-28', scenario: 'sep-2164-resource-not-found' },
    { revision: '2026-07-28', scenario: 'dns-rebinding-protection' },
  ])(
    'passes $scenario on $revision',
    { timeout: 180_000 },
    async ({ scenario, revision, notApplicable = [] }) => {
      const { code, output } = await runScenario(scenario, revision);
      // Colours stripped, whatever the suite decides about NO_COLOR.
      const text = stripVTControlCharacters(output);
      const checks = [...text.matchAll(/\[([\w-]+)\s*\] (SUCCESS|FAILURE)/g)].map(
        ([, id = '', status]) => ({ id, status }),
      );
      expect(checks.filter(({ status }) => status === 'SUCCESS').length, text).toBeGreaterThan(0);
      const failed = checks.filter(({ status }) => status === 'FAILURE').map(({ id }) => id);
      expect(
        failed.filter((id) => !notApplicable.includes(id)),
        text,
      ).toEqual([]);
      if (failed.length > 0) {
        expect(text).toMatch(/Error: Not testable: server does not list the diagnostic tool/);
      }
      if (notApplicable.length === 0) expect(code, text).toBe(0);
    },
  );
});
