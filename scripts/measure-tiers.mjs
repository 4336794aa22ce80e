#!/usr/bin/env node
// @ts-check
// `npm run measure:tiers`: what CI and a newcomer meet, timed. Each run clones this checkout's
// HEAD into a fresh directory, runs `npm ci` (not timed: the tiers are), then `npm test` (the fast
// tier, its build included) and `npm run test:system`, and counts the tests each passed. Writes
// the median of the runs (and each run) to its section of bench/figures.md, and the one line of
// CONTRIBUTING.md that says what each tier takes. MEASURE_TIERS_RUNS (3) and MEASURE_TIERS
// (fast,system) adjust it.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import { writeFiguresSection } from '../bench/lib/figures-file.mjs';

const repository = fileURLToPath(new URL('..', import.meta.url));
const runs = Number(process.env.MEASURE_TIERS_RUNS ?? 3);
const tiers = (process.env.MEASURE_TIERS ?? 'fast,system').split(',');
/** @type {Record<string, string[]>} */
const commands = { fast: ['test'], system: ['run', 'test:system'] };

/**
 * Runs `command` in `cwd` to its end; resolves with its wall time and output, or rejects.
 *
 * @param {string} command @param {string[]} args @param {string} cwd
 * @returns {Promise<{ seconds: number; output: string }>}
 */
function timed(command, args, cwd) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk) => {
      output += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const seconds = (performance.now() - started) / 1000;
      if (code === 0) resolve({ seconds, output });
      else {
        // The failures by name first: the end of the output is often a workspace's npm error.
        const failed = stripVTControlCharacters(output)
          .split('\n')
          .filter((line) => / FAIL /.test(line));
        reject(
          new Error(
            `${command} ${args.join(' ')} exited ${code}:\n${failed.join('\n')}\n${output.slice(-4000)}`,
          ),
        );
      }
    });
  });
}

/** The tests every vitest summary of a run's output says passed. @param {string} output */
function passedTests(output) {
  let passed = 0;
  for (const m of stripVTControlCharacters(output).matchAll(
    /Tests\s+(?:\d+ failed \| )?(\d+) passed/g,
  )) {
    passed += Number(m[1]);
  }
  return passed;
}

/** @param {number[]} values */
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const at = (/** @type {number} */ index) => sorted[index] ?? 0;
  return sorted.length % 2 ? at(middle) : (at(middle - 1) + at(middle)) / 2;
};
/** @param {number} seconds */
const minutes = (seconds) =>
  seconds < 60
    ? `${Math.round(seconds)} s`
    : `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`;

/** @type {Record<string, { seconds: number; tests: number }[]>} */
const results = Object.fromEntries(tiers.map((tier) => [tier, []]));
for (let run = 1; run <= runs; run += 1) {
  const clone = await mkdtemp(join(tmpdir(), 'measure-tiers-'));
  try {
    await timed('git', ['clone', '--quiet', repository, clone], repository);
    await timed('npm', ['ci', '--no-audit', '--no-fund'], clone);
    for (const tier of tiers) {
      const { seconds, output } = await timed('npm', commands[tier] ?? [], clone);
      results[tier]?.push({ seconds, tests: passedTests(output) });
      process.stderr.write(
        `run ${run}: ${tier} ${minutes(seconds)}, ${passedTests(output)} tests\n`,
      );
    }
  } finally {
    await rm(clone, { recursive: true, force: true });
  }
}

/** @type {Record<string, string>} */
const label = { fast: '`npm test` (fast tier, build included)', system: '`npm run test:system`' };
const rows = tiers.map((tier) => {
  const runsOfTier = results[tier] ?? [];
  const times = runsOfTier.map((r) => r.seconds);
  return `| ${label[tier]} | ${minutes(median(times))} | ${times.map(minutes).join(', ')} | ${runsOfTier[0]?.tests.toLocaleString('en-US')} |`;
});
const body = [
  `Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}; ${runs} fresh clones of HEAD, each after \`npm ci\`.`,
  '',
  '| tier | median | runs | tests passed |',
  '| --- | ---: | --- | ---: |',
  ...rows,
].join('\n');
writeFiguresSection('tiers', { title: 'Test tiers', command: 'npm run measure:tiers', body });

const contributing = join(repository, 'CONTRIBUTING.md');
const line = tiers
  .map(
    (tier) =>
      `${label[tier]} ${minutes(median((results[tier] ?? []).map((r) => r.seconds)))} (${results[tier]?.[0]?.tests.toLocaleString('en-US')} tests)`,
  )
  .join('; ');
const text = await readFile(contributing, 'utf8');
await writeFile(
  contributing,
  text.replace(
    /<!-- tiers -->.*<!-- \/tiers -->/s,
    `<!-- tiers -->On a fresh clone of this project's 2-core machine, after \`npm ci\`: ${line} (written by \`npm run measure:tiers\`; each run in [bench/figures.md](bench/figures.md)).<!-- /tiers -->`,
  ),
);
console.log(body);
