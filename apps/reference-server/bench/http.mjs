// HTTP benchmark of the reference server alone: signed creates and updates per second, with p50/p99
// latency, on its default embedded engine and on PostgreSQL 15, beside a bare Express 5 JSON POST
// handler, the server's HTTP layer on a Map, and Stoplight Prism's mock on the same spec, all
// measured in this one run. Each server runs in its own process; autocannon drives it from this one.
// The repository's `npm run bench` (bench/ at the root) runs the same scenarios with the client's
// and prints them against the targets.
//
//   npm run build && npm run bench -w @institution-api/reference-server
//
// BENCH_DURATION (seconds per scenario and run, default 5), BENCH_CONNECTIONS (default 10),
// BENCH_RUNS (default 1; the median of several is printed), BENCH_WARMUP (seconds, default 1),
// BENCH_SKIP=prism,postgres,embedded,http-layer,validator-floor to leave scenarios out.
import { cpus } from 'node:os';
import { median } from './lib/load.mjs';
import { runInterleaved, startHttpScenarios } from './lib/scenarios.mjs';
import { killAll, stopEverythingOnSignals } from './lib/servers.mjs';

const duration = Number(process.env.BENCH_DURATION ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const runs = Number(process.env.BENCH_RUNS ?? 1);
const warmup = Number(process.env.BENCH_WARMUP ?? 1);
const skip = new Set((process.env.BENCH_SKIP ?? '').split(',').filter(Boolean));
const log = (line) => process.stderr.write(`${line}\n`);

stopEverythingOnSignals();

async function main() {
  console.log(
    `Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}; ${duration} s per ` +
      `scenario, ${connections} connections, median of ${runs} run(s); servers and load generator ` +
      'share the machine.\n',
  );
  const { scenarios, notes, stop } = await startHttpScenarios({ connections, duration, skip, log });
  let samples;
  try {
    samples = await runInterleaved(scenarios, { runs, warmup, log });
  } finally {
    await stop();
  }
  const bare = samples.get('bare-express:create');
  const table = [
    '| scenario | req/s | p50 ms | p99 ms | server CPU µs/req | req/s vs bare Express |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    ...scenarios
      .filter(({ operation }) => operation !== 'message-signature-cost')
      .map(({ id, label }) => {
        const results = samples.get(id);
        const ratio = bare
          ? `${median(results.map((r, run) => r.requestsPerSecond / bare[run].requestsPerSecond)).toFixed(3)}×`
          : '—';
        const rate = Math.round(median(results.map((r) => r.requestsPerSecond)));
        const cpu = results.every((r) => r.cpuPerRequest !== undefined)
          ? Math.round(median(results.map((r) => r.cpuPerRequest)))
          : '';
        return `| ${label} | ${rate.toLocaleString('en-US')} | ${median(results.map((r) => r.p50))} | ${median(results.map((r) => r.p99))} | ${cpu} | ${ratio} |`;
      }),
  ];
  console.log(table.join('\n'));
  for (const note of notes) console.log(`\n${note}`);
}

main().catch((error) => {
  console.error(error);
  killAll();
  process.exitCode = 1;
});
