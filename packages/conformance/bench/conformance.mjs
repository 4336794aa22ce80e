#!/usr/bin/env node
// @ts-check
// The conformance package's benchmark (`npm run bench -w @institution-api/conformance`, and a
// section of the root `npm run bench`): how many requests per second `run` sends against the
// reference server, and how much latency the validation proxy adds, at p50 and p99. It prints
// figures and asserts nothing. See the package README, "Benchmark".
//
// - run: `runConformance` at the default budget and no rate limit, against the built reference
//   server on a fresh embedded database (a temporary directory, as `npm start` uses), one run per
//   seed; requests include shrinking, and a run sends one request at a time, so this is the
//   suite's own cost plus the server's latency.
// - proxy: the `institution-api-conformance proxy` CLI in a process of its own in front of the
//   same server; signed creates (each a new person) sent one at a time, alternately straight to
//   the server and through the proxy, so both see the same machine; the added latency is the
//   difference of the two percentiles.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatAuthorization } from '@institution-api/signing';
import { signSync } from '@institution-api/signing/node';
import { startReferenceServer } from '@institution-api/test-support/reference-server';
import { openapiDocument } from '@institution-api/types';

// The build's output, typed by its source (the package's build writes no declarations).
/** @type {typeof import('../src/index.ts')} */
const { runConformance } = await import(new URL('../dist/index.js', import.meta.url).href);

/** @typedef {{ institution: string; publicKey: string; secretKey: string }} Credential */
const credentials = [
  {
    institution: 'Bench Lender',
    publicKey: 'bench-first',
    secretKey: 'bench-first-secret-0123456789',
  },
  {
    institution: 'Bench Savings',
    publicKey: 'bench-second',
    secretKey: 'bench-second-secret-0123456789',
  },
];
const [first, second] = /** @type {[Credential, Credential]} */ (credentials);
const cli = fileURLToPath(new URL('../bin/institution-api-conformance.js', import.meta.url));

/** @param {number[]} values @param {number} p */
const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};
/** @param {number[]} values */
const median = (values) => percentile(values, 50);

/**
 * Runs the benchmark; resolves to the lines of its table.
 *
 * @param {{ runs?: number; proxyRequests?: number; log?: (line: string) => void }} [options]
 */
export async function conformanceBench({ runs = 3, proxyRequests = 1000, log = () => {} } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'conformance-bench-'));
  const server = await startReferenceServer({ credentials, databaseUrl: dataDir });
  try {
    const rates = [];
    for (let seed = 1; seed <= runs; seed++) {
      const report = await runConformance({
        baseUrl: server.url,
        document: openapiDocument,
        seed,
        rate: 0,
        credentials: { main: first, other: second },
      });
      const failed = report.results.filter((result) => result.failure).length;
      rates.push(report.requests / (report.durationMs / 1000));
      log(
        `run, seed ${seed}: ${report.requests} requests in ${(report.durationMs / 1000).toFixed(1)} s, ${failed} failure(s)`,
      );
    }
    const { direct, proxied } = await proxyLatency(server.url, proxyRequests, log);
    const ms = (/** @type {number} */ value) => value.toFixed(2);
    return [
      '| conformance | figure |',
      '|---|---:|',
      `| run: requests per second (median of ${runs} runs, default budget, no rate limit; range) | ${Math.round(median(rates))} (${Math.round(Math.min(...rates))}–${Math.round(Math.max(...rates))}) |`,
      `| proxy: p50 direct / through the proxy / added (ms, ${proxyRequests} creates each) | ${ms(percentile(direct, 50))} / ${ms(percentile(proxied, 50))} / ${ms(percentile(proxied, 50) - percentile(direct, 50))} |`,
      `| proxy: p99 direct / through the proxy / added (ms) | ${ms(percentile(direct, 99))} / ${ms(percentile(proxied, 99))} / ${ms(percentile(proxied, 99) - percentile(direct, 99))} |`,
    ];
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * The latency of creates straight to `target` and through the proxy, alternately.
 *
 * @param {string} target @param {number} count @param {(line: string) => void} log
 */
async function proxyLatency(target, count, log) {
  const child = spawn(process.execPath, [cli, 'proxy', '--target', target, '--port', '0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    /** @type {string} */
    const url = await new Promise((resolve, reject) => {
      let output = '';
      child.stdout.setEncoding('utf8').on('data', (chunk) => {
        output += chunk;
        const found = /listening on (http:\/\/\S+)/.exec(output)?.[1];
        if (found) resolve(found);
      });
      child.once('exit', (code) => reject(new Error(`the proxy exited (${code}): ${output}`)));
    });
    /** @type {number[]} */
    const direct = [];
    /** @type {number[]} */
    const proxied = [];
    /** @param {string} base @param {number} index */
    const send = async (base, index) => {
      const body = JSON.stringify({
        email: `bench.${process.pid}.${index}@example.com`,
        firstName: 'Bench',
        lastName: 'Proxy',
        mobileNumber: '0241234567',
        ghanaCardNumber: `GHA-${String(process.pid % 1000).padStart(3, '0')}${String(index).padStart(6, '0')}-1`,
        monthlyIncome: 0,
      });
      const started = performance.now();
      const response = await fetch(`${base}/api/v1/external/users`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: formatAuthorization(first, signSync(body, first.secretKey)),
        },
        body,
      });
      await response.arrayBuffer();
      if (response.status !== 201) throw new Error(`a create answered ${response.status}`);
      return performance.now() - started;
    };
    // Warm both paths (connections, JIT), then alternate.
    for (let index = 0; index < 50; index++) await send(index % 2 ? url : target, 900_000 + index);
    for (let index = 0; index < count; index++) {
      direct.push(await send(target, 2 * index));
      proxied.push(await send(url, 2 * index + 1));
    }
    log(`proxy: ${count} creates straight and ${count} through it`);
    return { direct, proxied };
  } finally {
    child.kill('SIGTERM');
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const lines = await conformanceBench({
    runs: Number(process.env.BENCH_RUNS ?? 3),
    log: (/** @type {string} */ line) => process.stderr.write(`  · ${line}\n`),
  });
  console.log(lines.join('\n'));
}
