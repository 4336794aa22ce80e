#!/usr/bin/env node
// `npm run measure:import-memory` (client README, "Memory and speed"): the peak RSS of
// `institution-api import` of a 1,000,000-row CSV file (BENCH_IMPORT_ROWS) against the built
// reference server on a fresh embedded database, as a user runs it (the built CLI in a process of
// its own, at its default concurrency). The peak is the kernel's: GNU time's "Maximum resident
// set size" when /usr/bin/time is there, else VmHWM from /proc/<pid>/status read until the
// process ends. Budget: 200 MB. Prints figures; asserts nothing.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { credential } from '../apps/reference-server/bench/lib/requests.mjs';
import {
  onInterrupt,
  startReferenceServer,
  stopEverythingOnSignals,
} from '../apps/reference-server/bench/lib/servers.mjs';
import { writeCustomersCsv } from './import-file.mjs';

const rows = Number(process.env.BENCH_IMPORT_ROWS ?? 1_000_000);
const budgetMb = 200;
const cli = fileURLToPath(new URL('../packages/cli/bin/institution-api.js', import.meta.url));
const gnuTime = '/usr/bin/time';
const log = (line) => process.stderr.write(`  · ${line}\n`);

stopEverythingOnSignals();

/** Runs the import; resolves to { code, seconds, peakKib, stdout }. */
function runMeasured(args, env) {
  const useTime = existsSync(gnuTime);
  const command = useTime ? gnuTime : process.execPath;
  const argv = useTime
    ? ['-v', process.execPath, cli, 'import', ...args]
    : [cli, 'import', ...args];
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, argv, {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let polledKib = 0;
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr = (stderr + chunk).slice(-20_000);
    });
    const poll = useTime
      ? undefined
      : setInterval(() => {
          try {
            const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
            polledKib = Math.max(polledKib, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0));
          } catch {
            // ended
          }
        }, 100);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearInterval(poll);
      const seconds = (performance.now() - started) / 1000;
      const timed = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr)?.[1];
      resolve({
        code,
        seconds,
        peakKib: timed ? Number(timed) : polledKib,
        how: timed ? 'GNU time -v' : '/proc VmHWM',
        stdout,
        stderr,
      });
    });
  });
}

const scratch = await mkdtemp(join(tmpdir(), 'institution-api-import-memory-'));
const forget = onInterrupt(() => rm(scratch, { recursive: true, force: true }));
let server;
try {
  const file = join(scratch, 'customers.csv');
  log(`writing ${rows.toLocaleString('en-US')} customers…`);
  await writeCustomersCsv(file, rows);
  const bytes = (await stat(file)).size;
  const dataDir = join(scratch, 'data');
  await mkdir(dataDir);
  server = await startReferenceServer('reference server, embedded', dataDir);
  log(
    `institution-api import of ${rows.toLocaleString('en-US')} rows (${(bytes / 1e6).toFixed(0)} MB)…`,
  );
  const result = await runMeasured([file, '--report', join(scratch, 'report.ndjson')], {
    INSTITUTION_API_URL: server.baseUrl,
    INSTITUTION_PUBLIC_KEY: credential.publicKey,
    INSTITUTION_SECRET_KEY: credential.secretKey,
  });
  if (result.code !== 0) {
    throw new Error(`the import exited with ${result.code}:\n${result.stderr}\n${result.stdout}`);
  }
  const peakMb = (result.peakKib * 1024) / 1e6;
  console.log(result.stdout.trim());
  console.log(
    `\nimport of ${rows.toLocaleString('en-US')} rows (${(bytes / 1e6).toFixed(0)} MB of CSV): peak RSS ` +
      `${peakMb.toFixed(1)} MB (${(result.peakKib / 1024).toFixed(1)} MiB, ${result.how}), ` +
      `${result.seconds.toFixed(0)} s; budget ${budgetMb} MB: ${peakMb <= budgetMb ? 'pass' : 'MISS'}`,
  );
} finally {
  await server?.stop();
  await rm(scratch, { recursive: true, force: true });
  forget();
}
