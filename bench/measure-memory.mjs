#!/usr/bin/env node
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { drive } from '../apps/reference-server/bench/lib/load.mjs';
import { createThenUpdateRequests } from '../apps/reference-server/bench/lib/requests.mjs';
import {
  killAll,
  onInterrupt,
  serverHeapFlags,
  startPostgres,
  startReferenceServer,
  stopEverythingOnSignals,
} from '../apps/reference-server/bench/lib/servers.mjs';
// `npm run measure:memory`: the resource budget (README.md), measured, never asserted in a test.
// For each engine: start the built reference server (`node <heap flags> dist/main.js`, what
// `npm start` runs) on a fresh data location, read its RSS once it answers /healthz and has
// settled, drive it with signed creates and updates at a fixed concurrency, let it settle, read its
// RSS again, and print both against the budget with a pass/MISS mark. See README.md.
import { writeFiguresSection } from './lib/figures-file.mjs';

const amount = Number(process.env.MEMORY_REQUESTS ?? 20_000);
const connections = Number(process.env.MEMORY_CONNECTIONS ?? 50);
const settleMs = Number(process.env.MEMORY_SETTLE_MS ?? 2_000);
const skip = new Set((process.env.BENCH_SKIP ?? '').split(',').filter(Boolean));
/** The resource budget, in MiB (README.md). */
const budget = { afterStart: 150, growth: 50 };

stopEverythingOnSignals();

const mib = (kib) => kib / 1024;
const fmt = (value) => `${value.toFixed(1)} MiB`;
const mark = (ok) => (ok ? 'pass' : 'MISS');

/**
 * Resident set size in KiB of `pid` and every process below it (a server that forks workers is
 * counted whole), from `ps`, which reads /proc on Linux and works on macOS too.
 */
function rssKiB(pid) {
  const table = execFileSync('ps', ['-A', '-o', 'pid=,ppid=,rss='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number));
  const tree = new Set([pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [child, parent] of table) {
      if (tree.has(parent) && !tree.has(child)) {
        tree.add(child);
        grew = true;
      }
    }
  }
  return table.filter(([p]) => tree.has(p)).reduce((sum, [, , rss]) => sum + rss, 0);
}

/** The process's peak RSS in KiB (VmHWM), where /proc has it (Linux); else undefined. */
function peakKiB(pid) {
  const status = `/proc/${pid}/status`;
  if (!existsSync(status)) return undefined;
  const match = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(status, 'utf8'));
  return match ? Number(match[1]) : undefined;
}

/**
 * One engine: RSS after start, then under load. A load that fails (a wrong status, a timeout)
 * still leaves the after-start figure, with the failure to print beside it.
 */
async function measureEngine(label, databaseUrl) {
  const startedAt = performance.now();
  const server = await startReferenceServer(`reference server, ${label}`, databaseUrl);
  try {
    const result = { label, readyAfter: (performance.now() - startedAt) / 1000 };
    await sleep(settleMs);
    result.afterStart = rssKiB(server.pid);
    try {
      result.load = await drive({
        label: `${label}, ${amount} mixed requests`,
        baseUrl: server.baseUrl,
        requests: createThenUpdateRequests(),
        connections,
        amount,
        timeout: 120, // a budget, not a latency test: a slow answer still counts as an answer
        expect: (status) => status === 201 || status === 200,
      });
    } catch (error) {
      result.error = error.message;
      return result;
    }
    await sleep(settleMs);
    result.afterLoad = rssKiB(server.pid);
    result.peak = peakKiB(server.pid);
    return result;
  } finally {
    await server.stop();
  }
}

async function main() {
  const started = Date.now();
  const scratch = await mkdtemp(join(tmpdir(), 'institution-api-memory-'));
  onInterrupt(() => rm(scratch, { recursive: true, force: true }));
  const results = [];
  const notes = [];
  try {
    if (skip.has('embedded')) notes.push('embedded (default): skipped by BENCH_SKIP');
    else {
      process.stderr.write('  · embedded (default)…\n');
      const dataDir = join(scratch, 'embedded');
      await mkdir(dataDir);
      results.push(await measureEngine('embedded (default)', dataDir));
    }
    if (skip.has('postgres')) notes.push('PostgreSQL 15: skipped by BENCH_SKIP');
    else {
      const postgres = await startPostgres();
      if (postgres.unavailable) notes.push(`PostgreSQL 15: not measured, ${postgres.unavailable}`);
      else {
        process.stderr.write('  · PostgreSQL 15…\n');
        try {
          results.push(await measureEngine('PostgreSQL 15', postgres.url));
        } finally {
          await postgres.stop();
        }
      }
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }

  /** What the run prints, kept for its section of bench/figures.md. */
  const printed = [];
  const report = (text) => {
    console.log(text);
    printed.push(text);
  };
  report(
    `\nNode ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}. The built ` +
      `reference server (node ${serverHeapFlags.join(' ')} dist/main.js) on a fresh data location; RSS of its process tree ` +
      `(the PostgreSQL server's own processes not included), read ${settleMs / 1000} s after it ` +
      `answered /healthz and ${settleMs / 1000} s after ${amount.toLocaleString('en-US')} signed ` +
      `requests (a create, then an update of that user, in turn) at concurrency ${connections}.\n`,
  );
  const header = [
    'engine',
    'ready after',
    'RSS after start',
    'budget',
    'met',
    `RSS after ${amount.toLocaleString('en-US')}`,
    'growth',
    'budget',
    'met',
    'peak RSS',
    'req/s',
  ];
  const rows = results.map((r) => {
    const start = [
      r.label,
      `${r.readyAfter.toFixed(1)} s`,
      fmt(mib(r.afterStart)),
      `≤ ${budget.afterStart} MiB`,
      mark(mib(r.afterStart) <= budget.afterStart),
    ];
    if (r.error) return [...start, 'load failed', '', `≤ ${budget.growth} MiB`, 'n/a', '', ''];
    const growth = mib(r.afterLoad - r.afterStart);
    return [
      ...start,
      fmt(mib(r.afterLoad)),
      `${growth >= 0 ? '+' : ''}${growth.toFixed(1)} MiB`,
      `≤ ${budget.growth} MiB`,
      mark(growth <= budget.growth),
      r.peak === undefined ? 'n/a' : fmt(mib(r.peak)),
      Math.round(r.load.requestsPerSecond).toLocaleString('en-US'),
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  report([line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n'));
  for (const r of results) {
    if (r.error) {
      report(`\n${r.label}: the load failed: ${r.error}`);
      continue;
    }
    const mix = Object.entries(r.load.statuses)
      .map(([status, count]) => `${status} × ${count.toLocaleString('en-US')}`)
      .join(', ');
    report(`\n${r.label}: statuses ${mix}`);
  }
  for (const note of notes) report(`\n${note}`);
  report(`\nTook ${Math.round((Date.now() - started) / 1000)} s.`);
  writeFiguresSection('memory', {
    title: 'Memory',
    command: 'npm run measure:memory',
    body: printed.join('\n'),
  });
}

main().catch((error) => {
  console.error(error);
  killAll();
  process.exitCode = 1;
});
