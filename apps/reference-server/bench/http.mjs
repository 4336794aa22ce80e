// HTTP benchmark of the reference server: signed creates and updates per second, with p50/p99
// latency, on PGlite and on PostgreSQL, beside a bare Express 5 JSON POST handler and Stoplight
// Prism's mock server on the same spec, all measured in this one run. Each server runs in its own
// process; autocannon drives it from this one.
//
//   npm run bench -w @institution-api/reference-server
//
// BENCH_DURATION (seconds per run, default 5), BENCH_CONNECTIONS (default 10),
// BENCH_SKIP=prism,postgres to leave peers out. Needs the built server (npm run build).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatAuthorization, signBodySync } from '@institution-api/signing/node';
import autocannon from 'autocannon';
import ts from 'typescript';

const packageDir = fileURLToPath(new URL('../', import.meta.url));
const specYaml = fileURLToPath(import.meta.resolve('@institution-api/types/openapi.yaml'));
const duration = Number(process.env.BENCH_DURATION ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const skip = new Set((process.env.BENCH_SKIP ?? '').split(',').filter(Boolean));
/** The newest Prism 5 whose `engines` admits Node 20 (5.15 and later need Node >= 24.14). */
const prismVersion = '5.14.2';
const credential = {
  institution: 'Bench Bank',
  publicKey: 'pk_bench',
  secretKey: 'sk_bench_0123456789abcdef0123456789',
};
const usersPath = '/api/v1/external/users';

let sequence = 0;
/** A valid create body with its own Ghana Card number and email, every call. */
function nextUser() {
  sequence += 1;
  return {
    email: `bench.${process.pid}.${sequence}@example.com`,
    firstName: 'Abena',
    lastName: 'Bench',
    mobileNumber: '0241234567',
    ghanaCardNumber: `GHA-${String(sequence).padStart(9, '0')}-${sequence % 10}`,
    monthlyIncome: 1500 + sequence,
    accountType: 'MOMO',
    accountNumber: '0551234567',
    accountName: 'Abena Bench',
    network: 'MTN',
    kyc: { occupation: 'Trader', address: 'Accra', validFrom: '2021-01-01', validTo: '2031-01-01' },
  };
}

function signed(request, body) {
  const { text, signature } = signBodySync(body, credential.secretKey);
  request.body = text;
  request.headers = {
    'content-type': 'application/json',
    authorization: formatAuthorization(credential, signature),
  };
  return request;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Starts a process and waits until `ready(baseUrl)` resolves true (polled), or fails. */
async function startProcess(name, command, args, env, ready, timeoutMs = 120_000) {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  // Its own process group, so that stopping `npx prism` also stops the node process npx starts.
  const child = spawn(command, args(port), {
    cwd: packageDir,
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  const signal = (name) => {
    try {
      process.kill(-child.pid, name);
    } catch {
      // already gone
    }
  };
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  child.stderr.unref?.();
  const deadline = Date.now() + timeoutMs;
  while (!(await ready(baseUrl).catch(() => false))) {
    if (exited) throw new Error(`${name} exited before it was ready:\n${stderr}`);
    if (Date.now() > deadline) {
      signal('SIGKILL');
      throw new Error(`${name} was not ready within ${timeoutMs} ms:\n${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    baseUrl,
    async stop() {
      if (exited) return signal('SIGKILL');
      const gone = new Promise((resolve) => child.once('exit', resolve));
      signal('SIGTERM');
      const timer = setTimeout(() => signal('SIGKILL'), 15_000);
      await gone;
      clearTimeout(timer);
      signal('SIGKILL'); // whatever npx left behind in the group
    },
  };
}

const healthy = async (baseUrl) => (await fetch(`${baseUrl}/healthz`)).status === 200;

function startReferenceServer(databaseUrl) {
  return startProcess(
    'reference server',
    process.execPath,
    () => ['dist/main.js'],
    {
      DATABASE_URL: databaseUrl,
      INSTITUTION_CREDENTIALS: JSON.stringify([credential]),
      LOG_LEVEL: 'info',
    },
    healthy,
  );
}

/** One autocannon run; fails the bench if any answer is not the expected status. */
async function measure(label, baseUrl, request, expectedStatus) {
  const statuses = new Map();
  const result = await autocannon({
    url: baseUrl,
    connections,
    duration,
    requests: [
      {
        ...request,
        onResponse: (status) => statuses.set(status, (statuses.get(status) ?? 0) + 1),
      },
    ],
  });
  const unexpected = [...statuses].filter(([status]) => status !== expectedStatus);
  if (result.errors > 0 || unexpected.length > 0) {
    throw new Error(
      `${label}: ${result.errors} errors, unexpected statuses ${JSON.stringify(unexpected)}`,
    );
  }
  return {
    label,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
  };
}

const createRequest = (bodyOf = nextUser) => ({
  method: 'POST',
  path: usersPath,
  setupRequest: (request) => signed(request, bodyOf()),
});

/** Creates `count` users one by one, for the update runs to replace. */
async function seedUsers(baseUrl, count) {
  const users = [];
  for (let i = 0; i < count; i++) {
    const body = nextUser();
    const request = signed({}, body);
    const answer = await fetch(`${baseUrl}${usersPath}`, {
      method: 'POST',
      headers: request.headers,
      body: request.body,
    });
    if (answer.status !== 201) throw new Error(`seeding answered ${answer.status}`);
    users.push({ id: (await answer.json()).id, body });
  }
  return users;
}

function updateRequest(users) {
  let next = 0;
  return {
    method: 'PUT',
    setupRequest(request) {
      const user = users[next++ % users.length];
      request.path = `${usersPath}/${user.id}`;
      return signed(request, { ...user.body, monthlyIncome: next });
    },
  };
}

/** Creates, then updates of 200 seeded users, against one running reference server. */
async function benchOperations(label, baseUrl) {
  const creates = await measure(
    `reference server, ${label}: create`,
    baseUrl,
    createRequest(),
    201,
  );
  const users = await seedUsers(baseUrl, 200);
  const updates = await measure(
    `reference server, ${label}: update`,
    baseUrl,
    updateRequest(users),
    200,
  );
  return [creates, updates];
}

async function benchReferenceServer(label, databaseUrl) {
  const server = await startReferenceServer(databaseUrl);
  try {
    return await benchOperations(label, server.baseUrl);
  } finally {
    await server.stop();
  }
}

/** test/support/postgres.ts (the storage tests' harness), transpiled to run from plain Node. */
async function loadPostgresHarness(dir) {
  const source = await readFile(join(packageDir, 'test/support/postgres.ts'), 'utf8');
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  const file = join(dir, 'postgres.mjs');
  await writeFile(file, outputText);
  return import(file);
}

const skipped = [];
const rows = [];

async function main() {
  if (!existsSync(join(packageDir, 'dist/main.js'))) {
    throw new Error('dist/main.js is missing: run `npm run build` first.');
  }
  const scratch = await mkdtemp(join(tmpdir(), 'reference-server-bench-'));
  try {
    console.log(
      `Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}; ` +
        `${duration} s per run, ${connections} connections; servers and load generator share the machine.\n`,
    );

    const bare = await startProcess(
      'bare Express',
      process.execPath,
      () => ['bench/bare-express.mjs'],
      {},
      async (baseUrl) => (await fetch(baseUrl)).status === 404,
    );
    try {
      rows.push(
        await measure('bare Express 5 JSON POST (baseline)', bare.baseUrl, createRequest(), 201),
      );
    } finally {
      await bare.stop();
    }

    const mapOnly = await startProcess(
      'reference server on a Map',
      process.execPath,
      () => ['bench/map-storage-server.mjs'],
      { INSTITUTION_CREDENTIALS: JSON.stringify([credential]), LOG_LEVEL: 'info' },
      healthy,
    );
    try {
      rows.push(...(await benchOperations('HTTP layer only (Map, no database)', mapOnly.baseUrl)));
    } finally {
      await mapOnly.stop();
    }

    rows.push(...(await benchReferenceServer('PGlite (on disk)', join(scratch, 'pglite'))));

    if (skip.has('postgres')) skipped.push('PostgreSQL: skipped by BENCH_SKIP');
    else {
      const harness = await loadPostgresHarness(scratch);
      const unavailable = harness.postgresUnavailableReason();
      if (unavailable) skipped.push(`PostgreSQL: ${unavailable}`);
      else {
        const postgres = await harness.startPostgres();
        try {
          rows.push(...(await benchReferenceServer('PostgreSQL 15', postgres.url)));
        } finally {
          await postgres.stop();
        }
      }
    }

    if (skip.has('prism')) skipped.push('Prism: skipped by BENCH_SKIP');
    else {
      let prism;
      try {
        prism = await startProcess(
          `Prism ${prismVersion}`,
          'npx',
          (port) => [
            '--yes',
            `@stoplight/prism-cli@${prismVersion}`,
            'mock',
            specYaml,
            '--host',
            '127.0.0.1',
            '--port',
            String(port),
          ],
          { npm_config_update_notifier: 'false' },
          async (baseUrl) => (await fetch(`${baseUrl}/healthz`)).status === 404,
          180_000,
        );
      } catch (error) {
        skipped.push(
          `Prism ${prismVersion}: could not be started (${error.message.split('\n')[0]})`,
        );
      }
      if (prism) {
        try {
          // Prism mock answers the first example of the first success status (200) to a valid body.
          rows.push(
            await measure(
              `Prism ${prismVersion} mock: create`,
              prism.baseUrl,
              createRequest(),
              200,
            ),
          );
        } finally {
          await prism.stop();
        }
      }
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }

  const baseline = rows[0].requestsPerSecond;
  const table = [
    '| scenario | req/s | p50 ms | p99 ms | req/s vs bare Express |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (row) =>
        `| ${row.label} | ${Math.round(row.requestsPerSecond).toLocaleString('en-US')} | ${row.p50} | ${row.p99} | ${(row.requestsPerSecond / baseline).toFixed(3)}× |`,
    ),
  ];
  console.log(table.join('\n'));
  for (const reason of skipped) console.log(`\nNot measured: ${reason}`);
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
