#!/usr/bin/env node
/**
 * `createUser` against a bare openapi-fetch `POST`, interleaved in one process, timed by this
 * process's CPU (`process.cpuUsage()`): the same stubbed `fetch` and body as
 * `client-overhead.mjs`, in 30 rounds of 1,000 calls each. Made to be profiled: under
 * `node --cpu-prof --cpu-prof-dir=<dir> bench/create-vs-bare.mjs`, every sample falls under
 * `runCreate` or `runBare`, and `node bench/profile-split.mjs <dir>` prints, function by function,
 * where `createUser`'s time goes beyond openapi-fetch's (proportions hold on a loaded machine,
 * where absolute times do not). Runs the built package (`npm run build` first).
 */
import { openapiDocument } from '@institution-api/types';
import createClient from 'openapi-fetch';
import { createUsersClient } from '../dist/index.js';

const { examples } = openapiDocument.components;
const body = examples.MomoAccountUser.value;
const answer = JSON.stringify(examples.UserCreatedNew.value);
async function stubFetch() {
  return new Response(answer, { status: 201, headers: { 'Content-Type': 'application/json' } });
}
const baseUrl = 'https://institution.example.com';
const bare = createClient({ baseUrl, fetch: stubFetch });
const users = createUsersClient({
  baseUrl,
  publicKey: 'pk_bench',
  secretKey: 'sk_bench_0123456789abcdef',
  fetch: stubFetch,
});

async function runBare(calls) {
  for (let i = 0; i < calls; i++) await bare.POST('/api/v1/external/users', { body });
}
async function runCreate(calls) {
  for (let i = 0; i < calls; i++) await users.createUser(body);
}

await runBare(2000);
await runCreate(2000);
const cpu = { bare: 0, create: 0 };
const rounds = 30;
const calls = 1000;
for (let round = 0; round < rounds; round++) {
  let started = process.cpuUsage();
  await runBare(calls);
  let used = process.cpuUsage(started);
  cpu.bare += used.user + used.system;
  started = process.cpuUsage();
  await runCreate(calls);
  used = process.cpuUsage(started);
  cpu.create += used.user + used.system;
}
const perCall = (micros) => (micros / (rounds * calls)).toFixed(1);
console.log(
  `bare openapi-fetch POST ${perCall(cpu.bare)} µs, createUser ${perCall(cpu.create)} µs of CPU per call: ${(cpu.create / cpu.bare).toFixed(2)}x`,
);
