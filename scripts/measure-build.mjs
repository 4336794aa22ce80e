#!/usr/bin/env node
// @ts-check
// Measures the build (the root README, "Figures"): how long openapi-typescript takes to
// generate the types, and a cold build (turbo --force: every task runs) against a second, cached
// one (every task a cache hit). Prints figures; asserts nothing, so it never flakes.
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';

const env = { ...process.env, REDOCLY_TELEMETRY: 'off', TURBO_TELEMETRY_DISABLED: '1' };
const root = new URL('..', import.meta.url).pathname;

/** @param {string} command @param {string[]} args @param {string} [cwd] */
function run(command, args, cwd = root) {
  const start = performance.now();
  const result = spawnSync(command, args, { cwd, env, encoding: 'utf8' });
  const ms = performance.now() - start;
  if (result.status !== 0) {
    process.stderr.write(result.stdout + result.stderr);
    throw new Error(`${command} ${args.join(' ')} exited ${result.status}`);
  }
  return { ms, output: result.stdout + result.stderr };
}

/** @param {number[]} values */
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
/** @param {number} ms */
const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;

const filter = process.argv[2] ?? '@institution-api/types';
run('npx', ['turbo', 'run', 'build', `--filter=${filter}...`, '--output-logs=none']);

const generation = [];
for (let i = 0; i < 5; i++) {
  generation.push(run('npx', ['openapi-typescript'], `${root}packages/types`).ms);
}

const cold = run('npx', ['turbo', 'run', 'build', '--force', '--output-logs=none']);
const cached = run('npx', ['turbo', 'run', 'build', '--output-logs=none']);
const hits = /Cached:\s+(\d+) cached, (\d+) total/.exec(cached.output);

console.log(`openapi-typescript (spawn included), median of 5: ${seconds(median(generation))}`);
console.log(`cold build (turbo --force, every task):            ${seconds(cold.ms)}`);
console.log(`cached build (second run):                         ${seconds(cached.ms)}`);
console.log(
  `cached / cold:                                      ${(cached.ms / cold.ms).toFixed(3)}`,
);
console.log(
  `turbo cache: ${hits ? `${hits[1]} of ${hits[2]} tasks cached` : 'no summary found'}${/FULL TURBO/.test(cached.output) ? ' (FULL TURBO)' : ''}`,
);
