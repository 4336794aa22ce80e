// Capacity on paper (docs/performance.md, "Capacity"): how many creates per second one, two and
// three server processes carry on ONE durable PostgreSQL (fsync on, as production runs it), and what PostgreSQL spends at
// that load: its commits per second (pg_stat_database.xact_commit of the service's database) and
// its CPU (utime + stime from /proc of the postmaster and every process it forked, in percent of one
// core). docs/performance.md, "Capacity", says how to read these figures.
//
//   npm run build && node bench/capacity.mjs
//
// Each process gets CONNECTIONS (10) connections of signed creates of new users, all driven from
// this process (autocannon); rounds run 1, 2, 3 processes, the next round 3, 2, 1, so that a
// machine whose speed drifts skews each count alike. RUNS (3), DURATION (10 s), WARMUP (3 s) and
// PROCESSES (1,2,3) adjust it. On a machine of a few cores the load generator, the servers and
// PostgreSQL share them: read the ratios between the rows, and PostgreSQL's share, not a target.
// Linux only.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { processCpuMicros as cpuMicros, postgresCpuReader } from './lib/cpu.mjs';
import { drive, median } from './lib/load.mjs';
import { createRequest, credentialsEnv } from './lib/requests.mjs';
import {
  killAll,
  serverHeapFlags,
  startPostgres,
  startProcess,
  stopEverythingOnSignals,
} from './lib/servers.mjs';

const runs = Number(process.env.RUNS ?? 3);
const duration = Number(process.env.DURATION ?? 10);
const warmup = Number(process.env.WARMUP ?? 3);
const connections = Number(process.env.CONNECTIONS ?? 10);
const counts = (process.env.PROCESSES ?? '1,2,3').split(',').map(Number);
const most = Math.max(...counts);

stopEverythingOnSignals();
const postgres = await startPostgres({ durable: true });
if (postgres.unavailable) throw new Error(postgres.unavailable);
const { postgresBinDir } = await import('@institution-api/test-support/postgres');
const psql = (sql, database = 'postgres') =>
  execFileSync(join(postgresBinDir, 'psql'), [
    postgres.url.replace(/\/postgres$/, `/${database}`),
    '-Atc',
    sql,
  ])
    .toString()
    .trim();
const database = 'capacity';
psql(`CREATE DATABASE ${database}`);
/** This PostgreSQL's CPU: its postmaster (started with `-p <its port>`) and all it forked. */
const postgresCpu = postgresCpuReader(new URL(postgres.url).port);
if (postgresCpu === undefined) throw new Error('no postmaster of this PostgreSQL found in /proc');
const commits = () =>
  Number(psql(`SELECT xact_commit FROM pg_stat_database WHERE datname = '${database}'`));

const servers = [];
try {
  for (let index = 0; index < most; index++) {
    servers.push(
      await startProcess(
        `server ${index + 1}`,
        process.execPath,
        () => [...serverHeapFlags, 'dist/main.js'],
        {
          env: {
            ...credentialsEnv,
            DATABASE_URL: postgres.url.replace(/\/postgres$/, `/${database}`),
          },
          ready: async (baseUrl) => (await fetch(`${baseUrl}/healthz`)).status === 200,
        },
      ),
    );
  }
  /** Creates at `connections` on each of the first `n` servers at once, for `seconds`. */
  const load = (n, seconds) =>
    Promise.all(
      servers.slice(0, n).map((server) =>
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

  await load(most, warmup);
  const results = new Map(counts.map((n) => [n, []]));
  for (let round = 1; round <= runs; round++) {
    for (const n of round % 2 ? counts : [...counts].reverse()) {
      const serverCpuBefore = servers.slice(0, n).map((server) => cpuMicros(server.pid));
      const [postgresBefore, commitsBefore, startedAt] = [
        postgresCpu(),
        commits(),
        performance.now(),
      ];
      const answers = await load(n, duration);
      const elapsedMicros = (performance.now() - startedAt) * 1000;
      const postgresPercent = ((postgresCpu() - postgresBefore) / elapsedMicros) * 100;
      // The query that reads the count is a commit of its own.
      const commitsPerSecond = ((commits() - commitsBefore - 1) / elapsedMicros) * 1e6;
      const serverPercents = servers
        .slice(0, n)
        .map((server, i) => ((cpuMicros(server.pid) - serverCpuBefore[i]) / elapsedMicros) * 100);
      const createsPerSecond = answers.reduce(
        (total, answer) => total + answer.requestsPerSecond,
        0,
      );
      const p99 = Math.max(...answers.map((answer) => answer.p99));
      results
        .get(n)
        .push({ createsPerSecond, commitsPerSecond, postgresPercent, serverPercents, p99 });
      console.log(
        `run ${round}, ${n} process${n > 1 ? 'es' : ''}: ${Math.round(createsPerSecond)} creates/s ` +
          `(p99 at most ${p99} ms), PostgreSQL ${Math.round(commitsPerSecond)} commits/s and ` +
          `${Math.round(postgresPercent)}% of a core, servers ${serverPercents.map((p) => `${Math.round(p)}%`).join(' + ')}`,
      );
    }
  }
  console.log('\nmedians:');
  console.log(
    '| processes | creates/s | PostgreSQL commits/s | PostgreSQL CPU (% of a core) | creates per commit |',
  );
  console.log('| ---: | ---: | ---: | ---: | ---: |');
  for (const [n, rows] of results) {
    const creates = median(rows.map((row) => row.createsPerSecond));
    const commitRate = median(rows.map((row) => row.commitsPerSecond));
    console.log(
      `| ${n} | ${Math.round(creates)} | ${Math.round(commitRate)} | ` +
        `${Math.round(median(rows.map((row) => row.postgresPercent)))} | ${(creates / commitRate).toFixed(2)} |`,
    );
  }
  console.log(
    `\n${connections} connections per process, ${runs} runs of ${duration} s; load average now ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
  );
} finally {
  for (const server of servers) await server.stop();
  await postgres.stop();
  killAll();
}
