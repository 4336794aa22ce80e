// Compares builds of this server on a durable PostgreSQL, as a change to its storage is judged: each
// build its own server on its own database of one PostgreSQL (fsync on), signed creates at
// 10 connections, runs interleaved (the order reversed every other run), so that a machine whose
// speed drifts over minutes skews each run of every build alike. Prints per run: creates/s, p50/p99,
// the server's CPU per create (from /proc: on a VM that reports no steal time, time taken by the host
// counts here too) and creates per commit (pg_stat_database); then the median of each build and,
// per run, each build against the first. ENGINE=embedded compares them on the embedded SQLite
// instead, each build on a fresh directory of its own (no creates per commit there).
//
//   npm run build && cp -r dist dist-after            # the change
//   git stash && npm run build && cp -r dist dist-before && git stash pop
//   node bench/compare-builds.mjs dist-before dist-after
//
// The build directories must sit in this package (their imports resolve from here); `dist-*` is
// ignored by git. Every build gets the benchmark's CREDENTIALS_ENCRYPTION_KEY (lib/requests.mjs),
// which PostgreSQL requires since the key lifecycle and earlier builds ignore. RUNS (6), DURATION (5 s),
// CONNECTIONS (10), WARMUP (3 s), ENGINE (postgres) adjust it; MESSAGE_SIGNATURES=1 sends the
// creates signed both ways by a key pair that requires message signatures (builds that have them).
// Linux only.
//
// A build may be followed by NAME=value words, in one argument, to compare the same build under
// other environments, e.g. the cost of the metrics (METRICS_PORT=0: any free port):
//
//   npm run build && node bench/compare-builds.mjs dist 'dist METRICS_PORT=0'
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { drive, median } from './lib/load.mjs';
import {
  createRequest,
  credentialsEnv,
  credentialsWithMessageSignaturesEnv,
} from './lib/requests.mjs';
import {
  killAll,
  packageDir,
  serverHeapFlags,
  startPostgres,
  startProcess,
  stopEverythingOnSignals,
} from './lib/servers.mjs';

/** Each argument: a build directory, then NAME=value words for its server's environment. */
const builds = process.argv.slice(2).map((argument) => {
  const [dir = '', ...assignments] = argument.trim().split(/\s+/);
  const env = Object.fromEntries(
    assignments.map((word) => [
      word.slice(0, word.indexOf('=')),
      word.slice(word.indexOf('=') + 1),
    ]),
  );
  return { label: argument.trim(), dir, env };
});
const runs = Number(process.env.RUNS ?? 6);
const duration = Number(process.env.DURATION ?? 5);
const connections = Number(process.env.CONNECTIONS ?? 10);
const warmup = Number(process.env.WARMUP ?? 3);
const embedded = process.env.ENGINE === 'embedded';
/** MESSAGE_SIGNATURES=1: creates by a key pair that requires message signatures, signed both ways. */
const messageSignatures = process.env.MESSAGE_SIGNATURES === '1';
if (!['postgres', 'embedded', undefined].includes(process.env.ENGINE)) {
  console.error('ENGINE must be postgres (the default) or embedded');
  process.exit(2);
}

if (
  builds.length === 0 ||
  builds.some(({ dir, env }) => !existsSync(`${packageDir}${dir}/main.js`) || '' in env)
) {
  console.error("usage: node bench/compare-builds.mjs <build dir> ['<build dir> NAME=value …' …]");
  console.error('each a copy of dist/ inside apps/reference-server/, holding main.js');
  process.exit(2);
}

/** CPU time of a process so far, in µs (utime + stime of /proc/PID/stat, 100 ticks a second). */
function cpuMicros(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

stopEverythingOnSignals();
const postgres = embedded ? undefined : await startPostgres({ durable: true });
if (postgres?.unavailable) throw new Error(postgres.unavailable);
const { postgresBinDir } = await import('@institution-api/test-support/postgres');
const psql = (sql) =>
  execFileSync(join(postgresBinDir, 'psql'), [postgres.url, '-Atc', sql]).toString().trim();
const scratch = embedded ? mkdtempSync(join(tmpdir(), 'compare-builds-')) : undefined;
const created = 201;
const servers = [];
try {
  for (const [index, build] of builds.entries()) {
    const database = `build_${index}`;
    if (postgres) psql(`CREATE DATABASE ${database}`);
    const handle = await startProcess(
      build.label,
      process.execPath,
      () => [...serverHeapFlags, `${build.dir}/main.js`],
      {
        env: {
          ...(messageSignatures ? credentialsWithMessageSignaturesEnv : credentialsEnv),
          DATABASE_URL: postgres
            ? postgres.url.replace(/\/postgres$/, `/${database}`)
            : join(scratch, database),
          ...build.env,
        },
        ready: async (baseUrl) => (await fetch(`${baseUrl}/healthz`)).status === 200,
      },
    );
    servers.push({ build: build.label, database, handle, rates: [] });
  }
  const commits = (database) =>
    postgres
      ? Number(psql(`SELECT xact_commit FROM pg_stat_database WHERE datname = '${database}'`))
      : Number.NaN;
  const run = (server, seconds) =>
    drive({
      label: server.build,
      baseUrl: server.handle.baseUrl,
      requests: [createRequest({ messageSignatures })],
      connections,
      duration: seconds,
      expect: (status) => status === created,
    });

  for (const server of servers) await run(server, warmup);
  for (let round = 1; round <= runs; round++) {
    for (const server of round % 2 ? servers : [...servers].reverse()) {
      const [cpuBefore, commitsBefore] = [cpuMicros(server.handle.pid), commits(server.database)];
      const result = await run(server, duration);
      const cpu = cpuMicros(server.handle.pid) - cpuBefore;
      // The query that reads the count is a commit of its own.
      const batches = commits(server.database) - commitsBefore - 1;
      server.rates.push(result.requestsPerSecond);
      console.log(
        `run ${round} ${server.build}: ${Math.round(result.requestsPerSecond)} creates/s, ` +
          `p50 ${result.p50} ms, p99 ${result.p99} ms, server CPU ${Math.round(cpu / result.total)} µs ` +
          `per create${postgres ? `, ${(result.total / batches).toFixed(2)} creates per commit` : ''}`,
      );
    }
  }
  console.log('');
  const [first] = servers;
  for (const server of servers) {
    const against =
      server === first
        ? ''
        : `; against ${first.build} per run: ${server.rates
            .map((rate, run) => `${(rate / first.rates[run]).toFixed(2)}×`)
            .join(' ')}`;
    console.log(`${server.build}: median ${Math.round(median(server.rates))} creates/s${against}`);
  }
} finally {
  for (const server of servers) await server.handle.stop();
  await postgres?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  killAll();
}
