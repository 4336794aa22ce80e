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
  /** Sends nothing more until {@link Flood.resume} (the requests in flight finish). */
  pause(): void;
  resume(): void;
  stop(): Promise<Record<string, number>>;
}

/** The cells of a flood's shared control: answers so far, and the command (see the worker). */
const [answeredCell, commandCell] = [0, 1];
const command = { run: 0, stop: 1, pause: 2 } as const;

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
  const control = new Int32Array(new SharedArrayBuffer(8));
  const worker = new Worker(new URL('./refusal-flood-worker.mjs', import.meta.url), {
    workerData: { baseUrl, request, connections, maxRequests, control },
  });
  const statuses = new Promise<Record<string, number>>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  const set = (value: number) => Atomics.store(control, commandCell, value);
  return {
    answered: () => Atomics.load(control, answeredCell),
    pause: () => set(command.pause),
    resume: () => set(command.run),
    async stop() {
      set(command.stop);
      const result = await statuses;
      await worker.terminate();
      return result;
    },
  };
}

/** The latencies of requests sent with a flood on, and with it off, in {@link latencyUnderFlood}. */
export interface FloodedLatencies {
  /** Sorted latencies (ms) of the requests sent and answered while the flood ran. */
  flooded: number[];
  /** Sorted latencies (ms) of those sent and answered while it was paused. */
  quiet: number[];
  /** The statuses of the measured requests, and of the flood's. */
  statuses: Record<string, number>;
  floodStatuses: Record<string, number>;
}

/**
 * The latencies of `next()`, sent over `connections` connections without a pause, while a flood of
 * `flood` (over `floodConnections`) is switched on and off every `periodMs`, `periods` times: each
 * request counts as flooded or quiet by the flood's state when it was sent and when it was
 * answered (one that spans a switch counts as neither). So whatever else the machine does in
 * those seconds weighs on both alike, and their percentiles compare the flood alone.
 */
export async function latencyUnderFlood(
  baseUrl: string,
  next: () => PreparedRequest,
  flood: PreparedRequest,
  options: { connections: number; floodConnections: number; periods: number; periodMs: number },
): Promise<FloodedLatencies> {
  const running = startFlood(baseUrl, flood, { connections: options.floodConnections });
  running.pause();
  let [on, switches] = [false, 0];
  const toggled = setInterval(() => {
    on = !on;
    switches += 1;
    if (on) running.resume();
    else running.pause();
  }, options.periodMs);
  const result: FloodedLatencies = { flooded: [], quiet: [], statuses: {}, floodStatuses: {} };
  const connection = async () => {
    while (switches < options.periods) {
      const [sentOn, sentAt] = [on, switches];
      const request = next();
      const started = performance.now();
      const response = await fetch(`${baseUrl}${request.path}`, request);
      await response.arrayBuffer();
      const took = performance.now() - started;
      result.statuses[response.status] = (result.statuses[response.status] ?? 0) + 1;
      if (switches === sentAt && switches < options.periods) {
        (sentOn ? result.flooded : result.quiet).push(took);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: options.connections }, connection));
  } finally {
    clearInterval(toggled);
    result.floodStatuses = await running.stop();
  }
  result.flooded.sort((a, b) => a - b);
  result.quiet.sort((a, b) => a - b);
  return result;
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
