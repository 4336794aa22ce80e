#!/usr/bin/env node
// @ts-check
// How long `institution-api-mock` takes from its launch to its first answer: the time until it
// prints "listening on …", and until a valid signed create is answered 201 (the first answer
// loads MSW and compiles the spec's validators). Beside it, in the same run, bare Node: a
// `node:http` server that answers every request, launched and timed the same way — the floor no
// Node program starts under. Prints the median and range of START_RUNS launches (default 10).
//
//   npm run build && node packages/mock/bench/start-time.mjs
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { formatAuthorization, signSync } from '@institution-api/signing/node';
import { openapiDocument } from '@institution-api/types';

const runs = Number(process.env.START_RUNS ?? 10);
const mockBin = fileURLToPath(new URL('../bin/institution-api-mock.js', import.meta.url));
const pair = {
  institution: 'Bench Institution',
  publicKey: 'bench-key',
  secretKey: 'bench-secret',
};
const examples = /** @type {Record<string, { value: Record<string, unknown> }>} */ (
  openapiDocument.components.examples
);
const example = examples.MomoAccountUser?.value;
const bareNode = [
  '-e',
  `const s = require('node:http').createServer((q, r) => { q.resume(); q.on('end', () => { r.statusCode = 201; r.end('{}'); }); });
   s.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + s.address().port));
   process.on('SIGTERM', () => s.close());`,
];

let serial = 0;
/** @param {string} url */
function signedCreate(url) {
  serial += 1;
  const card = String(100_000_000 + serial);
  const body = JSON.stringify({
    ...example,
    ghanaCardNumber: `GHA-${card}-${serial % 10}`,
    email: `start.${card}@example.com`,
  });
  return fetch(`${url}/api/v1/external/users`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: formatAuthorization(pair.publicKey, signSync(body, pair.secretKey)),
    },
    body,
  });
}

/**
 * One launch: ms until "listening on", ms until the first create is answered 201.
 *
 * @param {string[]} args
 * @returns {Promise<Sample>}
 */
async function launch(args) {
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    env: { PATH: process.env.PATH, INSTITUTION_CREDENTIALS: JSON.stringify([pair]) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    /** @type {string} */
    const url = await new Promise((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk) => {
        out += chunk;
        const match = /listening on (\S+)/.exec(out);
        if (match?.[1]) resolve(match[1]);
      });
      child.once('exit', (code) => reject(new Error(`exited ${code} before listening`)));
    });
    const listening = performance.now() - started;
    const answer = await signedCreate(url);
    await answer.arrayBuffer();
    if (answer.status !== 201) throw new Error(`the first create answered ${answer.status}`);
    return { listening, answered: performance.now() - started };
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
}

/** @param {number[]} values */
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  const at = (/** @type {number} */ index) => sorted[index] ?? 0;
  return sorted.length % 2 ? at(middle) : (at(middle - 1) + at(middle)) / 2;
};
/** @param {number[]} values */
const figure = (values) =>
  `${Math.round(median(values))} ms (${Math.round(Math.min(...values))}–${Math.round(Math.max(...values))})`;

/** @typedef {{ listening: number; answered: number }} Sample */
/** @type {{ mock: Sample[]; node: Sample[] }} */
const samples = { mock: [], node: [] };
for (let run = 0; run < runs; run++) {
  // interleaved, so that a burst of load elsewhere skews both alike
  samples.node.push(await launch(bareNode));
  samples.mock.push(await launch([mockBin, '--port', '0']));
}
console.log(`institution-api-mock start, ${runs} launches each, median (range):`);
console.log('| program | to "listening on" | to the first create answered 201 |');
console.log('|---|---:|---:|');
for (const [name, values] of /** @type {[string, Sample[]][]} */ ([
  ['bare node:http (the floor)', samples.node],
  ['institution-api-mock', samples.mock],
])) {
  console.log(
    `| ${name} | ${figure(values.map((v) => v.listening))} | ${figure(values.map((v) => v.answered))} |`,
  );
}
const ratio = median(samples.mock.map((v, i) => v.answered / (samples.node[i]?.answered ?? 1)));
console.log(
  `\nfirst answer: mock / bare node = ${ratio.toFixed(2)}× (median of per-launch ratios)`,
);
