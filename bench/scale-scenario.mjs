// The scale rows of `npm run bench`: one and two processes of the built reference server on ONE
// durable PostgreSQL 15 (fsync on), each process driven by `connections` connections of signed
// creates of new users, rounds interleaved (1, 2, then 2, 1, …); per round the creates per second,
// the CPU per create of each server process (its own CPU over its own creates) and of PostgreSQL
// (its postmaster and every process it forked, over all the creates). On a machine whose cores the
// load generator, the servers and PostgreSQL share, throughput cannot double with the processes;
// what must hold is the work per create: it must not grow when the load is split over processes
// (bench/README.md, "Scale"). `node bench/scale-scenario.mjs` prints the figures alone.
import { fileURLToPath } from 'node:url';
import {
  postgresCpuReader,
  processGroupCpuMicros,
} from '../apps/reference-server/bench/lib/cpu.mjs';
import { drive, median } from '../apps/reference-server/bench/lib/load.mjs';
import { createRequest } from '../apps/reference-server/bench/lib/requests.mjs';
import {
  startPostgres,
  startReferenceServer,
} from '../apps/reference-server/bench/lib/servers.mjs';

/** How many server processes each round runs. */
export const processCounts = [1, 2];

/**
 * Runs the rounds; resolves to { unavailable } (PostgreSQL or /proc missing) or a Map from the
 * number of processes to the rounds' { createsPerSecond, serverCpuPerCreate (all processes),
 * processCpuPerCreate: [µs of each], postgresCpuPerCreate, p99 }.
 */
export async function scaleBench({ runs, duration, warmup, connections, log = () => {} }) {
  const postgres = await startPostgres({ durable: true });
  if (postgres.unavailable) return { unavailable: postgres.unavailable };
  const servers = [];
  try {
    const postgresCpu = postgresCpuReader(new URL(postgres.url).port);
    if (!postgresCpu) return { unavailable: "PostgreSQL's processes cannot be read in /proc" };
    for (let index = 0; index < Math.max(...processCounts); index++) {
      log(`starting server process ${index + 1} on one PostgreSQL…`);
      servers.push(await startReferenceServer(`reference server ${index + 1}`, postgres.url));
    }
    /** Creates on each of the first `count` processes at once, for `seconds`. */
    const load = (count, seconds) =>
      Promise.all(
        servers.slice(0, count).map((server) =>
          drive({
            label: server.name,
            baseUrl: server.baseUrl,
            requests: [createRequest()],
            connections,
            duration: seconds,
            expect: (status) => status === 201,
          }),
        ),
      );
    if (warmup > 0) await load(servers.length, warmup);
    const rounds = new Map(processCounts.map((count) => [count, []]));
    for (let run = 0; run < runs; run++) {
      for (const count of run % 2 === 0 ? processCounts : [...processCounts].reverse()) {
        log(`scale, run ${run + 1}/${runs}: ${count} process(es) on one PostgreSQL`);
        const used = servers.slice(0, count);
        const cpuBefore = used.map((server) => processGroupCpuMicros(server.pid));
        const postgresBefore = postgresCpu();
        const answers = await load(count, duration);
        const postgresMicros = postgresCpu() - postgresBefore;
        const processMicros = used.map(
          (server, i) => processGroupCpuMicros(server.pid) - cpuBefore[i],
        );
        const creates = answers.reduce((total, answer) => total + answer.total, 0);
        rounds.get(count).push({
          createsPerSecond: answers.reduce((total, answer) => total + answer.requestsPerSecond, 0),
          serverCpuPerCreate: processMicros.reduce((a, b) => a + b, 0) / creates,
          processCpuPerCreate: processMicros.map((micros, i) => micros / answers[i].total),
          postgresCpuPerCreate: postgresMicros / creates,
          p99: Math.max(...answers.map((answer) => answer.p99)),
        });
      }
    }
    return { rounds };
  } finally {
    for (const server of servers) await server.stop().catch(() => {});
    await postgres.stop();
  }
}

/** The medians of each count's rounds, and each figure of two processes against one. */
export function summarize(rounds) {
  const of = (count, pick) => median(rounds.get(count).map(pick));
  const summary = new Map();
  for (const count of processCounts) {
    summary.set(count, {
      createsPerSecond: of(count, (r) => r.createsPerSecond),
      serverCpuPerCreate: of(count, (r) => r.serverCpuPerCreate),
      processCpuPerCreate: rounds
        .get(count)[0]
        .processCpuPerCreate.map((_, i) => of(count, (r) => r.processCpuPerCreate[i])),
      postgresCpuPerCreate: of(count, (r) => r.postgresCpuPerCreate),
      p99: of(count, (r) => r.p99),
    });
  }
  // Per round pairs, in the order they ran: the growth of the work per create from one to two.
  const growth = (pick) =>
    median(rounds.get(2).map((round, run) => pick(round) / pick(rounds.get(1)[run])));
  return {
    summary,
    serverGrowth: growth((r) => r.serverCpuPerCreate),
    postgresGrowth: growth((r) => r.postgresCpuPerCreate),
  };
}

// `node bench/scale-scenario.mjs`: the figures alone.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await scaleBench({
    runs: Number(process.env.BENCH_RUNS ?? 3),
    duration: Number(process.env.BENCH_DURATION ?? 5),
    warmup: Number(process.env.BENCH_WARMUP ?? 1),
    connections: Number(process.env.BENCH_CONNECTIONS ?? 10),
    log: (line) => process.stderr.write(`  · ${line}\n`),
  });
  if (result.unavailable) {
    console.log(`scale: not measured, ${result.unavailable}`);
  } else {
    const { summary, serverGrowth, postgresGrowth } = summarize(result.rounds);
    for (const [count, s] of summary) {
      console.log(
        `${count} process(es): ${Math.round(s.createsPerSecond)} creates/s, server CPU ${Math.round(s.serverCpuPerCreate)} µs/create ` +
          `(${s.processCpuPerCreate.map((us) => Math.round(us)).join(' + ')}), PostgreSQL ${Math.round(s.postgresCpuPerCreate)} µs/create, p99 ${s.p99} ms`,
      );
    }
    console.log(
      `two against one: server CPU per create ${serverGrowth.toFixed(2)}×, PostgreSQL's ${postgresGrowth.toFixed(2)}× (target ≤ 1.10×)`,
    );
  }
}
