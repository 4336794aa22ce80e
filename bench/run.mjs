#!/usr/bin/env node
// `npm run bench` at the repository root: one table of ratios, every ratio against a baseline
// measured in the same run, beside its targets with a pass/MISS mark, printed and written to its
// section of bench/figures.md, the one file of the project's figures (BENCH_FIGURES=0: printed
// only). See README.md.
import { cpus } from 'node:os';
import { median } from '../apps/reference-server/bench/lib/load.mjs';
import {
  runInterleaved,
  startHttpScenarios,
} from '../apps/reference-server/bench/lib/scenarios.mjs';
import {
  killAll,
  prismVersion,
  stopEverythingOnSignals,
} from '../apps/reference-server/bench/lib/servers.mjs';
import { conformanceBench } from '../packages/conformance/bench/conformance.mjs';
import { clientScenario } from './client-scenario.mjs';
import { importBench } from './import-scenario.mjs';
import { figuresFile, writeFiguresSection } from './lib/figures-file.mjs';
import { refusalBench } from './refusal-scenario.mjs';

const runs = Number(process.env.BENCH_RUNS ?? 3);
const duration = Number(process.env.BENCH_DURATION ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const warmup = Number(process.env.BENCH_WARMUP ?? 1);
const clientRounds = Number(process.env.BENCH_CLIENT_ROUNDS ?? 5);
const skip = new Set((process.env.BENCH_SKIP ?? '').split(',').filter(Boolean));
const importRows = Number(process.env.BENCH_IMPORT_ROWS ?? 100_000);
/** The import's default --concurrency, and the connections of the creates it is compared with. */
const importConcurrency = 8;
const log = (line) => process.stderr.write(`  · ${line}\n`);

/** The p99 target is stated at this many connections; at another count it is not judged. */
const p99Connections = 10;

stopEverythingOnSignals();

const rate = (result) => result.requestsPerSecond;
const perRun = (a, b, f) => (a && b ? a.map((x, run) => f(x, b[run])) : undefined);
const times = (value) => `${value.toFixed(2)}×`;
const spread = (values) =>
  values.length > 1 ? ` (${times(Math.min(...values))}–${times(Math.max(...values))})` : '';

/**
 * The cells { target, met } of a target: `value` compared with `limit` by `at` ('≥' or '≤');
 * n/a when there is no value (a scenario skipped, or measured where the target does not apply).
 */
function judge(at, limit, value, { prefix = '', unit = '×' } = {}) {
  const target = `${prefix}${at} ${limit}${unit}`;
  if (value === undefined) return { target, met: 'n/a' };
  const met = at === '≥' ? value >= limit : value <= limit;
  return { target, met: met ? 'pass' : 'MISS' };
}

function row(cells) {
  return `| ${cells.join(' | ')} |`;
}

async function main() {
  /** What the run prints, kept to be written to bench/figures.md at its end. */
  const printed = [];
  const report = (text) => {
    console.log(text);
    printed.push(text);
  };
  const started = Date.now();
  const client = skip.has('client') ? undefined : clientScenario({ rounds: clientRounds });
  const http = await startHttpScenarios({ connections, duration, skip, log });
  let samples;
  try {
    samples = await runInterleaved([...(client ? [client] : []), ...http.scenarios], {
      runs,
      warmup,
      log,
    });
  } finally {
    await http.stop();
  }
  // The import: one import of importRows rows, against creates at its concurrency (its own servers).
  const imported = skip.has('import')
    ? undefined
    : await importBench({ rows: importRows, concurrency: importConcurrency, duration, log });

  const s = (id) => samples.get(id);
  const rows = [];
  const ratioCell = (ratios, against) =>
    ratios ? `${times(median(ratios))} ${against}${spread(ratios)}` : `— (no ${against})`;
  const serverRow = (id, label, ratio, targets = []) => {
    const results = s(id);
    if (!results) return;
    rows.push([
      label,
      Math.round(median(results.map(rate))).toLocaleString('en-US'),
      String(median(results.map((r) => r.p50))),
      String(median(results.map((r) => r.p99))),
      ratio,
      targets.map((t) => t.target).join('; '),
      targets.map((t) => t.met).join('; '),
    ]);
  };
  const p99Target = (id) => {
    const results = s(id);
    const judged = connections === p99Connections && results;
    return judge('≤', 15, judged ? median(results.map((r) => r.p99)) : undefined, {
      prefix: 'p99 ',
      unit: ' ms',
    });
  };

  if (s('client')) {
    const bareUs = median(s('client').map((r) => r.bare.us));
    const clientUs = median(s('client').map((r) => r.client.us));
    const ratios = s('client').map((r) => r.client.us / r.bare.us);
    const name = s('client')[0].client.name;
    rows.push([
      'client: bare openapi-fetch POST (stubbed fetch)',
      `${Math.round(1e6 / bareUs).toLocaleString('en-US')} calls/s`,
      '',
      '',
      `baseline, ${bareUs.toFixed(1)} µs/call`,
      '',
      '',
    ]);
    const { target, met } = judge('≤', 1.3, median(ratios));
    rows.push([
      `client: ${name}`,
      `${Math.round(1e6 / clientUs).toLocaleString('en-US')} calls/s`,
      '',
      '',
      `${ratioCell(ratios, 'bare openapi-fetch time/call')}`,
      target,
      met,
    ]);
  }

  const bare = s('bare-express:create');
  serverRow('bare-express:create', 'bare Express 5 JSON POST', 'baseline');
  const httpVsBare = (op) => perRun(s(`http-layer:${op}`), bare, (a, b) => rate(a) / rate(b));
  serverRow(
    'http-layer:create',
    'HTTP layer (Map storage): create',
    ratioCell(httpVsBare('create'), 'bare Express'),
    [judge('≥', 0.6, httpVsBare('create') && median(httpVsBare('create')))],
  );
  serverRow(
    'http-layer:update',
    'HTTP layer (Map storage): update',
    ratioCell(httpVsBare('update'), 'bare Express POST'),
  );

  const prism = `Prism ${prismVersion} mock`;
  serverRow('prism:create', `${prism}: create`, 'baseline');
  serverRow('prism:update', `${prism}: update`, 'baseline');
  for (const [server, label, createTarget] of [
    ['embedded', 'embedded (default)', 1.2],
    ['postgres', 'PostgreSQL 15 (durable: fsync on)', 1.5],
    // For comparison only: a database that may lose acknowledged writes is not a product figure.
    ['postgres-nondurable', 'PostgreSQL 15, fsync off (NOT durable)', undefined],
  ]) {
    for (const op of ['create', 'update']) {
      const ratios = perRun(s(`${server}:${op}`), s(`prism:${op}`), (a, b) => rate(a) / rate(b));
      const targets = [];
      if (op === 'create' && createTarget) {
        targets.push(judge('≥', createTarget, ratios && median(ratios)));
      }
      if (server === 'embedded') targets.push(p99Target(`${server}:${op}`));
      serverRow(`${server}:${op}`, `${label}: ${op}`, ratioCell(ratios, `Prism ${op}`), targets);
    }
  }

  // Message signatures required: creates by the institution whose key pair requires them, signed
  // both ways, on the same servers and in the same runs as the rows above.
  const signedBothWays = (server) => s(`${server}:create-message-signatures`);
  const embeddedBothWays = perRun(
    signedBothWays('embedded'),
    s('embedded:create'),
    (a, b) => rate(a) / rate(b),
  );
  serverRow(
    'embedded:create-message-signatures',
    'embedded (default), message signatures required: create',
    ratioCell(embeddedBothWays, 'embedded create, header alone'),
    [judge('≥', 0.85, embeddedBothWays && median(embeddedBothWays))],
  );
  const postgresBothWays = perRun(
    signedBothWays('postgres'),
    s('prism:create'),
    (a, b) => rate(a) / rate(b),
  );
  const postgresAgainstAlone = perRun(
    signedBothWays('postgres'),
    s('postgres:create'),
    (a, b) => rate(a) / rate(b),
  );
  serverRow(
    'postgres:create-message-signatures',
    'PostgreSQL 15 (durable), message signatures required: create',
    `${ratioCell(postgresAgainstAlone, 'header alone')}; ${ratioCell(postgresBothWays, 'Prism create')}`,
    // Against the header alone on the same database, side by side (spec Assumptions, message
    // signatures): a ratio to Prism measured the disk's flushes more than this code.
    [judge('≥', 0.8, postgresAgainstAlone && median(postgresAgainstAlone))],
  );

  if (imported) {
    const { target, met } = judge('≥', 0.8, imported.ratio);
    rows.push([
      `import: ${importRows.toLocaleString('en-US')} CSV rows, --concurrency ${importConcurrency}`,
      `${Math.round(imported.importRate).toLocaleString('en-US')} rows/s`,
      '',
      '',
      `${times(imported.ratio)} embedded creates signed both ways at ${importConcurrency} connections (${Math.round(imported.createRate).toLocaleString('en-US')}/s), one run`,
      target,
      met,
    ]);
  }

  const header = [
    'scenario',
    'req/s',
    'p50 ms',
    'p99 ms',
    'ratio, median (range)',
    'target',
    'met',
  ];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const numeric = new Set([1, 2, 3]);
  const pad = (cells) =>
    cells.map((c, i) => (numeric.has(i) ? c.padStart(widths[i]) : c.padEnd(widths[i])));
  report(
    `\nNode ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}; median of ${runs} ` +
      `interleaved run(s); ${duration} s per HTTP scenario at ${connections} connections; ` +
      `client: ${clientRounds} rounds per run. Servers and load generator share the machine.\n`,
  );
  report(
    [
      row(pad(header)),
      row(widths.map((w, i) => (numeric.has(i) ? `${'-'.repeat(w - 1)}:` : '-'.repeat(w)))),
      ...rows.map((r) => row(pad(r))),
    ].join('\n'),
  );

  report('\nStatus mix over all runs:');
  for (const scenario of http.scenarios) {
    const mix = {};
    for (const result of s(scenario.id)) {
      for (const [status, count] of Object.entries(result.statuses)) {
        mix[status] = (mix[status] ?? 0) + count;
      }
    }
    const text = Object.entries(mix)
      .map(([status, count]) => `${status} × ${count.toLocaleString('en-US')}`)
      .join(', ');
    report(`  ${scenario.label}: ${text}`);
  }
  for (const note of http.notes) report(`\n${note}`);
  if (connections !== p99Connections) {
    report(
      `\nThe p99 target is stated at ${p99Connections} connections: not judged at ${connections}.`,
    );
  }
  if (!skip.has('conformance')) {
    report('\nThe conformance suite (packages/conformance/bench/conformance.mjs):\n');
    report((await conformanceBench({ runs, log })).join('\n'));
  }
  // Its own section of bench/figures.md (What a refusal costs), written by refusal-scenario.mjs.
  if (!skip.has('refusal')) console.log(`\n${(await refusalBench({ runs, log })).join('\n')}`);
  report(`\nTook ${Math.round((Date.now() - started) / 1000)} s.`);
  if (process.env.BENCH_FIGURES !== '0') {
    writeFiguresSection('bench', {
      title: 'Performance',
      command: 'npm run bench',
      body: printed.join('\n'),
    });
    log(`figures written to ${figuresFile.pathname}`);
  }
}

main().catch((error) => {
  console.error(error);
  killAll();
  process.exitCode = 1;
});
