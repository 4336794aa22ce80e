// The import's row of `npm run bench` (client README, "Memory and speed"): `institution-api import` of a CSV file of
// BENCH_IMPORT_ROWS customers (default 100,000) against the built reference server on a fresh
// embedded database, in rows per second, beside the server's own creates per second at the same
// concurrency (autocannon, the load generator of every other row, on another fresh embedded
// database, before and after the import: their mean), signed as the import signs its rows by
// default: both ways (the Authorization header and a message signature), by the same key pair, so
// that both sides ask the server for the same work and the ratio is the import's own overhead.
// The import runs as a user runs it, the built CLI in a process of its own, and is timed from its
// start to its exit, its first pass over the file included. Target: at least 0.9 of the server's
// creates per second.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { drive } from '../apps/reference-server/bench/lib/load.mjs';
import { createRequest, credential } from '../apps/reference-server/bench/lib/requests.mjs';
import { onInterrupt, startReferenceServer } from '../apps/reference-server/bench/lib/servers.mjs';
import { writeCustomersCsv } from './import-file.mjs';

const cli = fileURLToPath(new URL('../packages/cli/bin/institution-api.js', import.meta.url));

/** Runs the built CLI; resolves to { seconds, stdout } or rejects with its stderr. */
export function runImportCli(args, env, { wrap = [] } = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const [command, ...prefix] = wrap.length > 0 ? wrap : [process.execPath];
    const child = spawn(
      command,
      [...prefix, ...(wrap.length > 0 ? [process.execPath] : []), cli, 'import', ...args],
      {
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      const seconds = (performance.now() - started) / 1000;
      if (code === 0) resolve({ seconds, stdout, stderr });
      else reject(new Error(`institution-api import exited with ${code}:\n${stderr}${stdout}`));
    });
  });
}

/** The embedded server on a fresh empty directory under `scratch`. */
async function freshServer(scratch, name) {
  const dataDir = join(scratch, name);
  await mkdir(dataDir);
  return startReferenceServer(`reference server, ${name}`, dataDir);
}

/**
 * Measures once: creates/s at `concurrency` connections for `duration` s (before and after), and
 * the import of `rows` rows at `--concurrency concurrency`. Resolves to { rows, importRate,
 * createRate, ratio }.
 */
export async function importBench({ rows, concurrency, duration, log = () => {} }) {
  const scratch = await mkdtemp(join(tmpdir(), 'institution-api-import-bench-'));
  const forget = onInterrupt(() => rm(scratch, { recursive: true, force: true }));
  const stops = [];
  try {
    const file = join(scratch, 'customers.csv');
    log(`writing ${rows.toLocaleString('en-US')} customers…`);
    await writeCustomersCsv(file, rows);

    const load = await freshServer(scratch, 'load');
    stops.push(() => load.stop());
    const creates = () =>
      drive({
        label: 'embedded: create',
        baseUrl: load.baseUrl,
        requests: [createRequest({ messageSignatures: true, by: credential })],
        connections: concurrency,
        duration,
        expect: (status) => status === 201,
      });
    log(`server creates at ${concurrency} connections (before)…`);
    await creates(); // warm-up, unrecorded
    const before = await creates();

    const target = await freshServer(scratch, 'import');
    stops.push(() => target.stop());
    log(`institution-api import of ${rows.toLocaleString('en-US')} rows…`);
    const imported = await runImportCli(
      [file, '--concurrency', String(concurrency), '--report', join(scratch, 'report.ndjson')],
      {
        INSTITUTION_API_URL: target.baseUrl,
        INSTITUTION_PUBLIC_KEY: credential.publicKey,
        INSTITUTION_SECRET_KEY: credential.secretKey,
      },
    );
    const created = Number(/created\s+([\d,]+)/.exec(imported.stdout)?.[1]?.replaceAll(',', ''));
    if (created !== rows)
      throw new Error(`the import created ${created} of ${rows} rows:\n${imported.stdout}`);

    log(`server creates at ${concurrency} connections (after)…`);
    const after = await creates();
    const createRate = (before.requestsPerSecond + after.requestsPerSecond) / 2;
    const importRate = rows / imported.seconds;
    return {
      rows,
      importRate,
      createRate,
      ratio: importRate / createRate,
      seconds: imported.seconds,
    };
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => {});
    await rm(scratch, { recursive: true, force: true });
    forget();
  }
}

// `node bench/import-scenario.mjs`: the figures alone.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rows = Number(process.env.BENCH_IMPORT_ROWS ?? 100_000);
  const concurrency = Number(process.env.BENCH_IMPORT_CONCURRENCY ?? 8);
  const duration = Number(process.env.BENCH_DURATION ?? 5);
  const result = await importBench({
    rows,
    concurrency,
    duration,
    log: (line) => process.stderr.write(`  · ${line}\n`),
  });
  console.log(
    `import: ${rows.toLocaleString('en-US')} rows in ${result.seconds.toFixed(1)} s, ` +
      `${Math.round(result.importRate).toLocaleString('en-US')} rows/s; server creates at ${concurrency} connections: ` +
      `${Math.round(result.createRate).toLocaleString('en-US')}/s; ratio ${result.ratio.toFixed(2)}× (target ≥ 0.9×)`,
  );
}
