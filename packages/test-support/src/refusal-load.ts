/**
 * Hostile load, for the tests and the benchmark of what a refused request costs the reference
 * server: the bodies an attacker sends to make a refusal costly, requests sent over a number of
 * connections with their latencies, a flood sent from a thread of its own (so that its answers do
 * not delay the requests whose latency is measured), and a process's CPU time and memory read
 * from /proc. Loopback only: every URL is the caller's, a server it started.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';

/** Bodies of 16,383 bytes (under the diagnosis's 16 KiB) shaped to make a refusal costly. */
export const costlyBodies = {
  /** Arrays nested 32 levels deep, 8,160 numbers at the bottom: pretty-printed, megabytes. */
  nested: `${'['.repeat(32)}${'0,'.repeat(8159)}0${']'.repeat(32)}`,
  /** A flat array of 8,191 numbers. */
  flat: `[${'0,'.repeat(8190)}0]`,
} as const;

/** One request as sent: the same each time, or made anew for each. */
export interface PreparedRequest {
  method: 'POST' | 'PUT';
  /** The path and query, e.g. `/api/v1/external/users`. */
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** What a run of requests got. */
export interface LoadResult {
  /** How many answers had each status. */
  statuses: Record<string, number>;
  /** Each request's time from sending to the answer's last byte, in milliseconds, sorted. */
  latenciesMs: number[];
}

/** The `q` quantile (0–1) of sorted `values`, by the nearest rank. */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
}

/**
 * Sends `count` requests, `next(i)` each, over `connections` connections at once (each sends its
 * next once it has its answer), and resolves with their statuses and latencies.
 */
export async function sendConcurrently(
  baseUrl: string,
  count: number,
  connections: number,
  next: (index: number) => PreparedRequest,
): Promise<LoadResult> {
  const statuses: Record<string, number> = {};
  const latenciesMs: number[] = [];
  let sent = 0;
  const connection = async () => {
    while (sent < count) {
      const request = next(sent++);
      const started = performance.now();
      const response = await fetch(`${baseUrl}${request.path}`, request);
      await response.arrayBuffer();
      latenciesMs.push(performance.now() - started);
      statuses[response.status] = (statuses[response.status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: connections }, connection));
  latenciesMs.sort((a, b) => a - b);
  return { statuses, latenciesMs };
}

/** A flood under way; `stop` ends it and gives the statuses of the answers it got. */
export interface Flood {
  /** How many answers it has had so far. */
  answered(): number;
  stop(): Promise<Record<string, number>>;
}

/**
 * Sends `request` again and again over `connections` connections, each the next as soon as it has
 * its answer, from a worker thread, until stopped (or `maxRequests` are answered, a bound for a
 * test that forgets to stop it).
 */
export function startFlood(
  baseUrl: string,
  request: PreparedRequest,
  { connections, maxRequests = 1_000_000 }: { connections: number; maxRequests?: number },
): Flood {
  const answered = new Int32Array(new SharedArrayBuffer(8));
  const worker = new Worker(new URL('./refusal-flood-worker.mjs', import.meta.url), {
    workerData: { baseUrl, request, connections, maxRequests, answered },
  });
  const statuses = new Promise<Record<string, number>>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    answered: () => Atomics.load(answered, 0),
    async stop() {
      Atomics.store(answered, 1, 1);
      const result = await statuses;
      await worker.terminate();
      return result;
    },
  };
}

/** Clock ticks per second of /proc's CPU times (`getconf CLK_TCK`; 100 on Linux). */
const clockTicks = (() => {
  const value = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout);
  return Number.isInteger(value) && value > 0 ? value : 100;
})();

/**
 * The CPU time process `pid` has used, user and system, every thread of it (the libuv pool's,
 * the worker threads' too), in milliseconds (/proc/<pid>/stat; its resolution is one clock tick).
 */
export function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks;
}

/** The resident memory of process `pid` (VmRSS of /proc/<pid>/status), in bytes. */
export function processRssBytes(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1]) * 1024;
}
