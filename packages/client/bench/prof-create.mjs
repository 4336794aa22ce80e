import { openapiDocument } from '@institution-api/types';
import createClient from 'openapi-fetch';
import { createUsersClient } from '../dist/index.js';

const { examples } = openapiDocument.components;
const body = examples.MomoAccountUser.value;
const answer = JSON.stringify(examples.UserCreatedNew.value);
async function stubFetch() {
  return new Response(answer, { status: 201, headers: { 'Content-Type': 'application/json' } });
}
const bare = createClient({ baseUrl: 'https://x.example.com', fetch: stubFetch });
const users = createUsersClient({
  baseUrl: 'https://x.example.com',
  publicKey: 'pk',
  secretKey: 'sk_0123456789',
  fetch: stubFetch,
});
async function runBare(n) {
  for (let i = 0; i < n; i++) await bare.POST('/api/v1/external/users', { body });
}
async function runCreate(n) {
  for (let i = 0; i < n; i++) await users.createUser(body);
}
await runBare(2000);
await runCreate(2000);
const t = { bare: 0, create: 0 };
for (let round = 0; round < 30; round++) {
  let c = process.cpuUsage();
  await runBare(1000);
  let d = process.cpuUsage(c);
  t.bare += d.user + d.system;
  c = process.cpuUsage();
  await runCreate(1000);
  d = process.cpuUsage(c);
  t.create += d.user + d.system;
}
console.log(
  'bare',
  (t.bare / 30000).toFixed(1),
  'create',
  (t.create / 30000).toFixed(1),
  'µs cpu/call; ratio',
  (t.create / t.bare).toFixed(2),
);
