#!/usr/bin/env node
// What a refused request costs the reference server, beside what a create costs, measured on the
// built server as `npm start` runs it (its heap flags, the embedded database in a fresh
// directory, the sandbox: diagnosis on), each server in a process of its own on 127.0.0.1, its
// CPU time and RSS read from /proc (@institution-api/test-support/refusal-load):
//
// - CPU per request: signed creates (the baseline), and refusals of 16,383-byte bodies shaped to
//   cost (arrays nested 32 levels, a flat array) under a known key with a wrong secret (each one
//   diagnosed), and of a made-up key; the refusal limits off, so every refusal is a diagnosed 401;
//   `runs` interleaved rounds, the median;
// - the p99 of one stream of creates (another key) over two connections while a flood of the
//   nested refusals under one key over four connections, from the same address, is switched on and
//   off every 1.5 s: the creates sent while it ran against the others, with the default refusal
//   limits;
// - the RSS after 10,000 requests with made-up public keys of 16 KB, the refusal limits off (every
//   one a 401 through the lookup's path), after 2,000 such requests that let the young generation
//   grow to its size.
//
// Run by `npm run bench`; alone: `node bench/refusal-scenario.mjs`. Either writes its section of
// bench/figures.md (BENCH_FIGURES=0: printed only). BENCH_REFUSAL_MAIN=<another build's
// dist/main.js> measures that build instead (the before of a change; it is told the same
// settings, which an older build ignores).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { formatAuthorization, signSync } from '@institution-api/signing/node';
import {
  costlyBodies,
  latencyUnderFlood,
  percentile,
  processCpuMs,
  processRssBytes,
  sendConcurrently,
} from '@institution-api/test-support/refusal-load';
import { median } from '../apps/reference-server/bench/lib/load.mjs';
import {
  credential,
  credentialsWithMessageSignaturesEnv,
  nextUser,
  signedBothWays,
  usersPath,
} from '../apps/reference-server/bench/lib/requests.mjs';
import {
  onInterrupt,
  packageDir,
  serverHeapFlags,
  startProcess,
} from '../apps/reference-server/bench/lib/servers.mjs';
import { writeFiguresSection } from './lib/figures-file.mjs';

const main = process.env.BENCH_REFUSAL_MAIN ?? join(packageDir, 'dist/main.js');
/** The refusal limits off: every refusal diagnosed, none slowed. */
const limitsOff = { REFUSALS_PER_MINUTE_PER_KEY: '0', REFUSALS_PER_MINUTE_PER_ADDRESS: '0' };

/** The built server on a fresh embedded database under `scratch`, with `env`. */
async function startServer(scratch, name, env = {}) {
  return startProcess(
    `reference server (${name})`,
    process.execPath,
    () => [...serverHeapFlags, main],
    {
      env: { ...credentialsWithMessageSignaturesEnv, DATABASE_URL: join(scratch, name), ...env },
      ready: async (url) => (await fetch(`${url}/healthz`)).status === 200,
    },
  );
}

/** A create of a new person by the key pair that requires message signatures, signed both ways. */
function create() {
  const request = signedBothWays({}, nextUser(), 'POST', usersPath);
  return { method: 'POST', path: usersPath, headers: request.headers, body: request.body };
}

/** `body` under `publicKey`, with a signature that is not its secret's: refused. */
function refused(body, publicKey = credential.publicKey) {
  const signature = signSync(body, 'not-the-secret-key');
  return {
    method: 'POST',
    path: usersPath,
    headers: {
      'content-type': 'application/json',
      authorization: formatAuthorization({ publicKey }, signature),
    },
    body,
  };
}

let made = 0;
/** A refusal under a public key of `length` characters that no one has, another each time. */
function madeUpKey(length) {
  made += 1;
  const publicKey = `pk_${String(made).padStart(length - 3, 'x')}`;
  return refused('{}', publicKey);
}

/** The kinds of request whose CPU time is measured, and how many of each per round. */
const kinds = [
  ['create', 'signed create (both ways), the baseline', 300, create],
  [
    'nested',
    'refused: 16,383 bytes nested 32 levels, known key',
    150,
    () => refused(costlyBodies.nested),
  ],
  ['flat', 'refused: 16,383 bytes flat, known key', 150, () => refused(costlyBodies.flat)],
  ['unknown', 'refused: made-up key', 300, () => madeUpKey(27)],
];

/** CPU ms per request of each kind, `runs` rounds each starting at another kind. */
async function cpuPerRequest(server, runs, log) {
  const samples = Object.fromEntries(kinds.map(([id]) => [id, []]));
  const statuses = {};
  for (const [, , , next] of kinds) await sendConcurrently(server.baseUrl, 30, 4, next);
  for (let run = 0; run < runs; run += 1) {
    for (let k = 0; k < kinds.length; k += 1) {
      const [id, , count, next] = kinds[(run + k) % kinds.length];
      const before = processCpuMs(server.pid);
      const result = await sendConcurrently(server.baseUrl, count, 4, next);
      samples[id].push((processCpuMs(server.pid) - before) / count);
      for (const [status, n] of Object.entries(result.statuses)) {
        statuses[`${id} ${status}`] = (statuses[`${id} ${status}`] ?? 0) + n;
      }
    }
    log(`refusals: CPU round ${run + 1} of ${runs}`);
  }
  return { ms: Object.fromEntries(kinds.map(([id]) => [id, median(samples[id])])), statuses };
}

/**
 * The p99 of one stream of creates over two connections while a flood of the nested refusals
 * (one key, four connections, from a worker thread) is switched on and off every 1.5 s, 6 × runs
 * times: those sent while it ran against those sent while it did not.
 */
async function createsUnderFlood(server, runs) {
  await sendConcurrently(server.baseUrl, 100, 2, create);
  const before = processCpuMs(server.pid);
  const started = performance.now();
  const measured = await latencyUnderFlood(server.baseUrl, create, refused(costlyBodies.nested), {
    connections: 2,
    floodConnections: 4,
    periods: 6 * runs,
    periodMs: 1_500,
  });
  return {
    quiet: percentile(measured.quiet, 0.99),
    loaded: percentile(measured.flooded, 0.99),
    counts: [measured.quiet.length, measured.flooded.length],
    flooded: measured.floodStatuses,
    /** The server's CPU time over the whole time: the cores it kept busy, creates included. */
    serverCores: (processCpuMs(server.pid) - before) / (performance.now() - started),
  };
}

/** The RSS of `server` before and after 10,000 requests with made-up keys of 16 KB. */
async function rssAfterMadeUpKeys(server) {
  await sendConcurrently(server.baseUrl, 2_000, 8, () => madeUpKey(16_000));
  const before = processRssBytes(server.pid);
  const result = await sendConcurrently(server.baseUrl, 10_000, 8, () => madeUpKey(16_000));
  return { before, after: processRssBytes(server.pid), statuses: result.statuses };
}

const mb = (bytes) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
const pass = (met) => (met ? 'pass' : 'MISS');

/**
 * Runs the three measurements and returns the lines of their table; writes them to bench/figures.md
 * (section `refusals`) unless BENCH_FIGURES=0.
 */
export async function refusalBench({ runs = 3, log = () => {} } = {}) {
  const scratch = await mkdtemp(join(tmpdir(), 'bench-refusals-'));
  const forget = onInterrupt(() => rm(scratch, { recursive: true, force: true }));
  const servers = [];
  try {
    const [costs, sandbox, memory] = [
      await startServer(scratch, 'costs', limitsOff),
      await startServer(scratch, 'flood'),
      await startServer(scratch, 'memory', limitsOff),
    ];
    servers.push(costs, sandbox, memory);
    const cpu = await cpuPerRequest(costs, runs, log);
    const flood = await createsUnderFlood(sandbox, runs);
    log('refusals: creates under a flood');
    const rss = await rssAfterMadeUpKeys(memory);
    const rows = kinds.map(([id, label]) => {
      const ms = cpu.ms[id];
      return id === 'create'
        ? [label, `${ms.toFixed(2)} ms CPU/request`, 'baseline', '', '']
        : [
            label,
            `${ms.toFixed(2)} ms CPU/request`,
            `${(ms / cpu.ms.create).toFixed(2)}× a create`,
            '≤ 5 ms',
            pass(ms <= 5),
          ];
    });
    const ratio = flood.loaded / flood.quiet;
    rows.push([
      `creates' p99 under a flood of the nested refusals (one key, 4 connections, same address)`,
      `${flood.quiet.toFixed(1)} ms quiet (${flood.counts[0]}), ${flood.loaded.toFixed(1)} ms flooded (${flood.counts[1]})`,
      `${ratio.toFixed(2)}× quiet`,
      '≤ 2×',
      pass(ratio <= 2),
    ]);
    const grown = rss.after - rss.before;
    rows.push([
      'RSS after 10,000 requests with made-up keys of 16 KB',
      `${mb(rss.before)} → ${mb(rss.after)}`,
      `${grown >= 0 ? '+' : ''}${mb(grown)}`,
      '≤ +16 MB',
      pass(grown <= 16 * 2 ** 20),
    ]);
    const header = ['scenario', 'figure', 'ratio', 'target', 'met'];
    const table = [header, header.map(() => '---'), ...rows].map(
      (cells) => `| ${cells.join(' | ')} |`,
    );
    const lines = [
      `Node ${process.version}; ${runs} interleaved round(s); the server as \`npm start\` runs it, on a fresh embedded database; CPU time and RSS of its process from /proc. Load generator, flood and server share the machine.`,
      '',
      ...table,
      '',
      `Answers: ${JSON.stringify(cpu.statuses)}; the flood's: ${JSON.stringify(flood.flooded)} (the server kept ${flood.serverCores.toFixed(2)} of the machine's cores busy meanwhile, creates included); the made-up keys': ${JSON.stringify(rss.statuses)}.`,
    ];
    if (process.env.BENCH_FIGURES !== '0' && !process.env.BENCH_REFUSAL_MAIN) {
      writeFiguresSection('refusals', {
        title: 'What a refusal costs',
        command: 'node bench/refusal-scenario.mjs (and npm run bench)',
        body: lines.join('\n'),
      });
    }
    return lines;
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    await rm(scratch, { recursive: true, force: true });
    forget();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const lines = await refusalBench({
    runs: Number(process.env.BENCH_RUNS ?? 3),
    log: (line) => process.stderr.write(`  · ${line}\n`),
  });
  console.log(lines.join('\n'));
}
