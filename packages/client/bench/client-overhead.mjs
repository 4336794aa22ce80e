#!/usr/bin/env node
/**
 * Per-call overhead of the client against baselines measured in the same run. Every variant
 * POSTs the same user (the spec's MomoAccountUser example) to the same stubbed `fetch`, which
 * answers the spec's canned `201` without any network, so the figures are the client's own
 * cost: serialization, signing, `Request` copies, timeout signals, normalization. Plus signing
 * throughput against bare `node:crypto`.
 *
 * Runs the built package (dist/), as consumers get it: `npm run bench` builds first.
 * Variants run interleaved, in rounds, and each figure is the median of the rounds' mean
 * per-call time, so a burst of load on a shared machine skews one round, not the result.
 */
import { createHmac } from 'node:crypto';
import { sign } from '@institution-api/signing';
import { openapiDocument } from '@institution-api/types';
import createClient from 'openapi-fetch';
import { createSigningMiddleware, createUsersClient } from '../dist/index.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const CALLS = Number(process.env.BENCH_CALLS ?? 1000);
const BASE_URL = 'https://institution.example.com';
const CREDENTIALS = { publicKey: 'pk_bench', secretKey: 'sk_bench_0123456789abcdef' };
const { examples } = openapiDocument.components;
const body = examples.MomoAccountUser.value;
const bodyText = JSON.stringify(body);
const answer = JSON.stringify(examples.UserCreatedNew.value);

/** The same canned answer for everyone; a fresh Response per call, since a body reads once. */
async function stubFetch() {
  return new Response(answer, { status: 201, headers: { 'Content-Type': 'application/json' } });
}

const bare = createClient({ baseUrl: BASE_URL, fetch: stubFetch });
const signedOnly = createClient({ baseUrl: BASE_URL, fetch: stubFetch });
signedOnly.use(createSigningMiddleware(CREDENTIALS));
const users = createUsersClient({ baseUrl: BASE_URL, ...CREDENTIALS, fetch: stubFetch });
const oneAttempt = createUsersClient({
  baseUrl: BASE_URL,
  ...CREDENTIALS,
  fetch: stubFetch,
  retry: false,
});

const groups = {
  [`per call, ${Buffer.byteLength(bodyText)}-byte body, stubbed fetch`]: {
    'plain fetch (JSON.stringify, response.json())': async () => {
      const response = await stubFetch(`${BASE_URL}/api/v1/external/users`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      await response.json();
    },
    'bare openapi-fetch POST (no signing)': () => bare.POST('/api/v1/external/users', { body }),
    'openapi-fetch POST + signing middleware': () =>
      signedOnly.POST('/api/v1/external/users', { body }),
    'createUser, retry: false': () => oneAttempt.createUser(body),
    'createUser, defaults': () => users.createUser(body),
  },
  [`signing, ${Buffer.byteLength(bodyText)}-byte body`]: {
    'node:crypto createHmac sha256 hex': async () => {
      createHmac('sha256', CREDENTIALS.secretKey).update(bodyText).digest('hex');
    },
    '@institution-api/signing sign (Web Crypto)': () => sign(bodyText, CREDENTIALS.secretKey),
  },
};

async function batch(fn) {
  const started = performance.now();
  for (let i = 0; i < CALLS; i++) await fn();
  return ((performance.now() - started) * 1000) / CALLS;
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

console.log(`node ${process.version}, ${ROUNDS} rounds x ${CALLS} calls, median of round means\n`);
for (const [title, variants] of Object.entries(groups)) {
  const entries = Object.entries(variants);
  for (const [, fn] of entries) await batch(fn); // warm-up
  const samples = new Map(entries.map(([name]) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, fn] of entries) samples.get(name).push(await batch(fn));
  }
  const baselines = entries
    .slice(0, title.startsWith('per call') ? 2 : 1)
    .map(([name]) => [name, median(samples.get(name))]);
  console.log(title);
  for (const [name] of entries) {
    const us = median(samples.get(name));
    const perSecond = Math.round(1e6 / us).toLocaleString('en-US');
    const ratios = baselines.map(([, base]) => `${(us / base).toFixed(2)}x`.padStart(7)).join(' ');
    console.log(
      `  ${name.padEnd(48)} ${us.toFixed(1).padStart(8)} µs/call ${perSecond.padStart(9)}/s ${ratios}`,
    );
  }
  console.log(`  (ratios against: ${baselines.map(([name]) => `"${name}"`).join(', ')})\n`);
}
