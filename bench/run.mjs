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
  validatorFloorLabel,
} from '../apps/reference-server/bench/lib/servers.mjs';
import { conformanceBench } from '../packages/conformance/bench/conformance.mjs';
import { clientScenario } from './client-scenario.mjs';
import { importBench } from './import-scenario.mjs';
import { figuresFile, writeFiguresSection } from './lib/figures-file.mjs';
import { refusalBench } from './refusal-scenario.mjs';
import { scaleBench, summarize as summarizeScale } from './scale-scenario.mjs';

const runs = Number(process.env.BENCH_RUNS ?? 3);
const duration = Number(process.env.BENCH_DURATION ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const warmup = Number(process.env.BENCH_WARMUP ?? 1);
const clientRounds = Number(process.env.BENCH_CLIENT_ROUNDS ?? 11);
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
  // Scale: one and two server processes on one durable PostgreSQL (their own cluster).
  const scale = skip.has('scale')
    ? undefined
    : await scaleBench({ runs, duration, warmup, connections, log });
  // The import: one import of importRows rows, against creates at its concurrency (its own servers).
  const imported = skip.has('import')
    ? undefined
    : await importBench({ rows: importRows, concurrency: importConcurrency, duration, log });

  const s = (id) => samples.get(id);
  const rows = [];
  const ratioCell = (ratios, against) =>
    ratios ? `${times(median(ratios))} ${against}${spread(ratios)}` : `— (no ${against})`;
  const microsCell = (values, what) =>
    values
      ? `${Math.round(median(values))} µs ${what}${values.length > 1 ? ` (${Math.round(Math.min(...values))}–${Math.round(Math.max(...values))})` : ''}`
      : `— (no ${what})`;
  const cpuOf = (results) =>
    results.every((r) => r.cpuPerRequest !== undefined)
      ? String(Math.round(median(results.map((r) => r.cpuPerRequest))))
      : '';
  const serverRow = (id, label, ratio, targets = []) => {
    const results = s(id);
    if (!results) return;
    rows.push([
      label,
      Math.round(median(results.map(rate))).toLocaleString('en-US'),
      String(median(results.map((r) => r.p50))),
      String(median(results.map((r) => r.p99))),
      cpuOf(results),
      ratio,
      targets.map((t) => t.target).join('; '),
      targets.map((t) => t.met).join('; '),
    ]);
  };
  const p99Target = (id) => {
    const results = s(id);
    const judged = connections === p99Connections && results;
    return judge('≤', 10, judged ? median(results.map((r) => r.p99)) : undefined, {
      prefix: 'p99 ',
      unit: ' ms',
    });
  };
  const rateRatios = (a, b) => perRun(s(a), s(b), (x, y) => rate(x) / rate(y));
  /** Per run, the server CPU per request of `a` minus that of `b` (µs). */
  const cpuDifferences = (a, b) =>
    perRun(s(a), s(b), (x, y) =>
      x.cpuPerRequest === undefined || y.cpuPerRequest === undefined
        ? Number.NaN
        : x.cpuPerRequest - y.cpuPerRequest,
    )?.filter((value) => !Number.isNaN(value));
  const medianOf = (values) => (values?.length ? median(values) : undefined);

  if (s('client')) {
    const client = s('client');
    const us = (pick) => median(client.map((r) => pick(r).us));
    const callsCell = (micros) => `${Math.round(1e6 / micros).toLocaleString('en-US')} calls/s`;
    rows.push([
      'client: bare openapi-fetch POST (stubbed fetch)',
      callsCell(us((r) => r.bare)),
      '',
      '',
      us((r) => r.bare).toFixed(1),
      'baseline',
      '',
      '',
    ]);
    const signed = client.every((r) => r.signedInline) ? (r) => r.signedInline : undefined;
    const againstBare = client.map((r) => r.client.us / r.bare.us);
    const againstSigned = signed && client.map((r) => r.client.us / signed(r).us);
    if (signed) {
      rows.push([
        'client: the same POST, both signatures inline (node:crypto)',
        callsCell(us(signed)),
        '',
        '',
        us(signed).toFixed(1),
        `baseline (signed); ${ratioCell(
          client.map((r) => signed(r).us / r.bare.us),
          'bare',
        )}`,
        '',
        '',
      ]);
    }
    const targets = [
      judge('≤', 1.15, againstSigned && median(againstSigned), { prefix: 'signed ' }),
      judge('≤', 1.3, median(againstBare), { prefix: 'bare ' }),
    ];
    rows.push([
      `client: ${client[0].client.name}`,
      callsCell(us((r) => r.client)),
      '',
      '',
      us((r) => r.client).toFixed(1),
      `${againstSigned ? `${ratioCell(againstSigned, 'signed inline')}; ` : ''}${ratioCell(againstBare, 'bare')} (time/call)`,
      targets.map((t) => t.target).join('; '),
      targets.map((t) => t.met).join('; '),
    ]);
  }

  serverRow('bare-express:create', 'bare Express 5 JSON POST', 'baseline');
  const floorRatios = rateRatios('validator-floor:create', 'bare-express:create');
  serverRow(
    'validator-floor:create',
    `${validatorFloorLabel}: create (floor)`,
    ratioCell(floorRatios, 'bare Express'),
  );
  const httpVsBare = (op) => rateRatios(`http-layer:${op}`, 'bare-express:create');
  const httpVsFloor = rateRatios('http-layer:create', 'validator-floor:create');
  serverRow(
    'http-layer:create',
    'HTTP layer (Map storage): create',
    `${ratioCell(httpVsBare('create'), 'bare Express')}${httpVsFloor ? `; ${ratioCell(httpVsFloor, 'validator floor')}` : ''}`,
    [judge('≥', 0.6, medianOf(httpVsBare('create')))],
  );
  serverRow(
    'http-layer:update',
    'HTTP layer (Map storage): update',
    ratioCell(httpVsBare('update'), 'bare Express POST'),
  );
  /** A "message signatures required" row: its rate against the header alone, and its CPU cost. */
  const messageSignatureRow = (server, label, prismToo = false) => {
    const id = `${server}:create-message-signatures`;
    // Taken in pairs of short windows, one right after the other (scenarios.mjs); else, from the
    // rows' own runs.
    const paired = s(`${server}:message-signature-cost`)
      ?.map((r) => r?.cpuCost)
      .filter((value) => Number.isFinite(value));
    const cost = paired?.length ? paired : cpuDifferences(id, `${server}:create`);
    const prismRatios = prismToo ? rateRatios(id, 'prism:create') : undefined;
    serverRow(
      id,
      `${label}, message signatures required: create`,
      `${ratioCell(rateRatios(id, `${server}:create`), 'header alone')}; ${microsCell(cost, 'CPU more per create')}${prismRatios ? `; ${ratioCell(prismRatios, 'Prism create')}` : ''}`,
      [judge('≤', 30, medianOf(cost), { unit: ' µs CPU more' })],
    );
  };
  messageSignatureRow('http-layer', 'HTTP layer (Map storage)');

  const prism = `Prism ${prismVersion} mock`;
  serverRow('prism:create', `${prism}: create`, 'baseline');
  serverRow('prism:update', `${prism}: update`, 'baseline');
  for (const [server, label, createTarget] of [
    ['embedded', 'embedded (default)', 2.5],
    ['postgres', 'PostgreSQL 15 (durable: fsync on)', 2],
    // For comparison only: a database that may lose acknowledged writes is not a product figure.
    ['postgres-nondurable', 'PostgreSQL 15, fsync off (NOT durable)', undefined],
  ]) {
    for (const op of ['create', 'update']) {
      const ratios = rateRatios(`${server}:${op}`, `prism:${op}`);
      const targets = [];
      let cell = ratioCell(ratios, `Prism ${op}`);
      if (createTarget && op === 'create') targets.push(judge('≥', createTarget, medianOf(ratios)));
      if (createTarget && op === 'update') {
        // An update is a create's work on a row that exists: within 10 % of the create's rate.
        const againstCreate = rateRatios(`${server}:update`, `${server}:create`);
        cell += `; ${ratioCell(againstCreate, 'create')}`;
        targets.push(judge('≥', 0.9, medianOf(againstCreate), { prefix: 'create ' }));
      }
      if (createTarget) targets.push(p99Target(`${server}:${op}`));
      serverRow(`${server}:${op}`, `${label}: ${op}`, cell, targets);
    }
  }

  // Message signatures required: creates by the institution whose key pair requires them, signed
  // both ways, on the same servers and in the same runs as the rows above; what each costs is the
  // server's CPU per create beyond the creates signed with the header alone.
  messageSignatureRow('embedded', 'embedded (default)');
  messageSignatureRow('postgres', 'PostgreSQL 15 (durable)', true);

  if (scale?.rounds) {
    const { summary, serverGrowth, postgresGrowth } = summarizeScale(scale.rounds);
    for (const [count, figures] of summary) {
      const processes = `${count} process${count > 1 ? 'es' : ''}`;
      const perProcess =
        count > 1
          ? ` (${figures.processCpuPerCreate.map((us) => Math.round(us)).join(' + ')} by process)`
          : '';
      const targets =
        count > 1
          ? [
              judge('≤', 1.1, serverGrowth, { prefix: 'servers ' }),
              judge('≤', 1.1, postgresGrowth, { prefix: 'PostgreSQL ' }),
            ]
          : [];
      rows.push([
        `scale: ${processes} on one PostgreSQL 15 (durable): create`,
        Math.round(figures.createsPerSecond).toLocaleString('en-US'),
        '',
        String(figures.p99),
        String(Math.round(figures.serverCpuPerCreate)),
        `PostgreSQL ${Math.round(figures.postgresCpuPerCreate)} µs CPU per create${perProcess}${count > 1 ? `; CPU per create ${times(serverGrowth)} one process's (servers), ${times(postgresGrowth)} (PostgreSQL)` : ''}`,
        targets.map((t) => t.target).join('; '),
        targets.map((t) => t.met).join('; '),
      ]);
    }
  }

  if (imported) {
    const { target, met } = judge('≥', 0.9, imported.ratio);
    rows.push([
      `import: ${importRows.toLocaleString('en-US')} CSV rows, --concurrency ${importConcurrency}`,
      `${Math.round(imported.importRate).toLocaleString('en-US')} rows/s`,
      '',
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
    'CPU µs/req',
    'ratio, median (range)',
    'target',
    'met',
  ];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const numeric = new Set([1, 2, 3, 4]);
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
    if (!s(scenario.id).every((result) => result?.statuses)) continue;
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
  if (scale?.unavailable) report(`\nscale: not measured, ${scale.unavailable}`);
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
