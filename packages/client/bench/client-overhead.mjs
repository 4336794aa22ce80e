#!/usr/bin/env node
/**
 * Per-call overhead of the client against baselines measured in the same run. Every variant
 * POSTs the same user (the spec's MomoAccountUser example) to the same stubbed `fetch`, which
 * answers the spec's canned `201` without any network, so the figures are the client's own
 * cost: serialization, signing, `Request` copies, timeout signals, normalization. Then the same
 * two clients end to end with Node's own `fetch` against a local server in another process,
 * timed by this process's CPU, so that what a stub does not do (`fetch` building its `Request`,
 * the socket) is counted too. Plus signing on its own against bare `node:crypto`, and the
 * per-attempt timeout plumbing on its own.
 *
 * Runs the built package (dist/), as consumers get it: `npm run bench` builds first.
 * Variants run interleaved, in rounds. Each figure is the median of the rounds' mean per-call
 * time, and each ratio the median of the rounds' ratios to the baseline, so a burst of load on
 * a shared machine skews one round, not the result.
 *
 * Output: per group, a title line, then one line per variant:
 *   `  <name padded to 48> <µs> µs/call <calls>/s <ratio>x [<ratio>x]`
 * with one ratio per baseline of the group (named on the group's last line).
 *
 * Environment:
 *   BENCH_ROUNDS, BENCH_CALLS  rounds and calls per round (default 15 x 1000; the end-to-end
 *                              group makes a fifth of the calls)
 *   BENCH_CLOCK=cpu            time with process.cpuUsage() (this process's CPU, all threads)
 *                              instead of the wall clock: steadier on a shared machine
 *   BENCH_BEFORE=<dir>         also run createUser from another build of this package (its
 *                              dist/ directory, e.g. built from main), for before/after
 *                              figures taken in the same run
 */
import { fork } from 'node:child_process';
import { createHash, createHmac, randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { sign } from '@institution-api/signing';
import { createSigner, SIGNER_RUNTIME } from '@institution-api/signing/signer';
import { openapiDocument } from '@institution-api/types';
import createClient from 'openapi-fetch';
import { sendWithRetries } from '../dist/attempts.js';
import { createSigningMiddleware, createUsersClient } from '../dist/index.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const CALLS = Number(process.env.BENCH_CALLS ?? 1000);
const CPU_CLOCK = process.env.BENCH_CLOCK === 'cpu';
const BASE_URL = 'https://institution.example.com';
const CREDENTIALS = { publicKey: 'pk_bench', secretKey: 'sk_bench_0123456789abcdef' };
const TIMEOUT_MS = 10_000;
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
const options = { baseUrl: BASE_URL, ...CREDENTIALS, fetch: stubFetch };
const users = createUsersClient(options);
const oneAttempt = createUsersClient({ ...options, retry: false });
/**
 * A caller's signal that never fires, one per variant: AbortSignal.any keeps weak references to
 * its composites on its sources, which would slow down a signal shared with other variants.
 */
const callerSignal = () => new AbortController().signal;
const signals = {
  createUser: callerSignal(),
  before: callerSignal(),
  any: callerSignal(),
  attempts: callerSignal(),
};

const usersPath = '/api/v1/external/users';
/**
 * The floor of a signing client on openapi-fetch: the body serialized once and both signatures
 * computed inline with node:crypto, as an integrator would write them without this package: the
 * HMAC of the body for `Authorization`, its SHA-256 for `Content-Digest`, and the HMAC of the
 * RFC 9421 signature base (`@method`, `@path`, `content-digest`, a fresh `created` and nonce).
 */
function signedInline(text) {
  const digest = `sha-256=:${createHash('sha256').update(text).digest('base64')}:`;
  const params = `("@method" "@path" "content-digest");created=${Math.floor(Date.now() / 1000)};nonce="${randomUUID()}";keyid="${CREDENTIALS.publicKey}";alg="hmac-sha256"`;
  const base = `"@method": POST\n"@path": ${usersPath}\n"content-digest": ${digest}\n"@signature-params": ${params}`;
  return {
    Authorization: `${CREDENTIALS.publicKey}:${createHmac('sha256', CREDENTIALS.secretKey).update(text).digest('hex')}`,
    'Content-Digest': digest,
    'Signature-Input': `sig1=${params}`,
    Signature: `sig1=:${createHmac('sha256', CREDENTIALS.secretKey).update(base).digest('base64')}:`,
  };
}

const perCall = {
  'plain fetch (JSON.stringify, response.json())': async () => {
    const response = await stubFetch(`${BASE_URL}/api/v1/external/users`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    await response.json();
  },
  'bare openapi-fetch POST (no signing)': () => bare.POST(usersPath, { body }),
  'bare openapi-fetch POST + both signatures inline (node:crypto)': () => {
    const text = JSON.stringify(body);
    return bare.POST(usersPath, { body, bodySerializer: () => text, headers: signedInline(text) });
  },
  'openapi-fetch POST + signing middleware': () =>
    signedOnly.POST('/api/v1/external/users', { body }),
  'createUser, retry: false': () => oneAttempt.createUser(body),
  'createUser, defaults': () => users.createUser(body),
  'createUser, defaults, with a caller signal': () =>
    users.createUser(body, { signal: signals.createUser }),
};
const before = process.env.BENCH_BEFORE
  ? await import(pathToFileURL(resolve(process.env.BENCH_BEFORE, 'index.js')).href)
  : undefined;
if (before) {
  const old = before.createUsersClient(options);
  perCall['before: createUser, defaults'] = () => old.createUser(body);
  perCall['before: createUser, defaults, caller signal'] = () =>
    old.createUser(body, { signal: signals.before });
}

const signer = createSigner(CREDENTIALS.secretKey);
const resolved = () => Promise.resolve();
const stubAnswer = new Response(null, { status: 201 });
/** One call of the client's retry loop around an attempt that answers at once. */
const oneCall = (caller) =>
  sendWithRetries({
    send: async () => stubAnswer,
    responseOf: (response) => response,
    timeoutMs: TIMEOUT_MS,
    retry: { retries: 2, baseDelayMs: 250, maxDelayMs: 5000 },
    caller,
  });

const server = fork(new URL('./canned-answer-server.mjs', import.meta.url));
const port = await new Promise((resolve) => server.once('message', resolve));
const localUrl = `http://127.0.0.1:${port}`;
const bareOverHttp = createClient({ baseUrl: localUrl });
const usersOverHttp = createUsersClient({ baseUrl: localUrl, ...CREDENTIALS });
const endToEnd = {
  'bare openapi-fetch POST (no signing)': () =>
    bareOverHttp.POST('/api/v1/external/users', { body }),
  'createUser, defaults': () => usersOverHttp.createUser(body),
};
if (before) {
  const old = before.createUsersClient({ baseUrl: localUrl, ...CREDENTIALS });
  endToEnd['before: createUser, defaults'] = () => old.createUser(body);
}

const groups = {
  [`per call, ${Buffer.byteLength(bodyText)}-byte body, stubbed fetch`]: [perCall, 3],
  "end to end: Node fetch to a local server in another process, this process's CPU": [
    endToEnd,
    1,
    { calls: Math.max(1, Math.round(CALLS / 5)), clock: 'cpu' },
  ],
  [`signing, ${Buffer.byteLength(bodyText)}-byte body`]: [
    {
      'node:crypto createHmac sha256 hex': async () => {
        createHmac('sha256', CREDENTIALS.secretKey).update(bodyText).digest('hex');
      },
      [`signing/signer createSigner (${SIGNER_RUNTIME})`]: async () => signer(bodyText),
      '@institution-api/signing sign (Web Crypto)': () => sign(bodyText, CREDENTIALS.secretKey),
    },
    1,
  ],
  'timeout and caller signal of one call, no request': [
    {
      'AbortSignal.any([caller, AbortSignal.timeout])': async () => {
        AbortSignal.any([signals.any, AbortSignal.timeout(TIMEOUT_MS)]);
        await resolved();
      },
      'AbortController + setTimeout/clearTimeout': async () => {
        const controller = new AbortController();
        const timer = setTimeout(() => controller.abort(), TIMEOUT_MS);
        await resolved();
        clearTimeout(timer);
      },
      "the client's retry loop (sendWithRetries)": () => oneCall(undefined),
      "the client's retry loop, with a caller signal": () => oneCall(signals.attempts),
    },
    1,
  ],
};

function now(clock) {
  if (clock !== 'cpu') return performance.now() * 1000;
  const { user, system } = process.cpuUsage();
  return user + system;
}

async function batch(fn, { calls = CALLS, clock = CPU_CLOCK ? 'cpu' : 'wall' } = {}) {
  const started = now(clock);
  for (let i = 0; i < calls; i++) await fn();
  return (now(clock) - started) / calls;
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

const clock = CPU_CLOCK ? 'CPU time (process.cpuUsage)' : 'wall clock';
console.log(
  `node ${process.version}, ${ROUNDS} rounds x ${CALLS} calls, median of round means and of round ratios, ${clock}\n`,
);
for (const [title, [variants, baselineCount, timing]] of Object.entries(groups)) {
  const entries = Object.entries(variants);
  for (const [, fn] of entries) await batch(fn, timing); // warm-up
  const samples = new Map(entries.map(([name]) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    // Each round starts at another variant, so none always runs after the same one (and pays for
    // the garbage it left).
    const start = round % entries.length;
    for (const [name, fn] of [...entries.slice(start), ...entries.slice(0, start)]) {
      samples.get(name).push(await batch(fn, timing));
    }
  }
  const baselines = entries.slice(0, baselineCount).map(([name]) => name);
  console.log(title);
  for (const [name] of entries) {
    const us = median(samples.get(name));
    const perSecond = Math.round(1e6 / us).toLocaleString('en-US');
    // Each ratio is the median of the rounds' ratios: a variant and its baseline measured in
    // the same round saw the same load, so the ratio is steadier than one of two medians.
    const ratios = baselines
      .map((base) => {
        const perRound = samples.get(name).map((value, round) => value / samples.get(base)[round]);
        return `${median(perRound).toFixed(2)}x`.padStart(7);
      })
      .join(' ');
    console.log(
      `  ${name.padEnd(62)} ${us.toFixed(1).padStart(8)} µs/call ${perSecond.padStart(9)}/s ${ratios}`,
    );
  }
  console.log(`  (ratios against: ${baselines.map((name) => `"${name}"`).join(', ')})\n`);
}
server.disconnect();
