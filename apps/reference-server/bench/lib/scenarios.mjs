// The HTTP scenarios of the benchmark, shared by the package's `npm run bench` (bench/http.mjs) and
// the root's one table (bench/run.mjs at the repository root): the servers are started once, warmed
// up, and each scenario is then measured once per run, runs interleaved, so that a burst of load
// from elsewhere on a shared machine skews one sample of every scenario rather than one scenario.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { drive } from './load.mjs';
import {
  createRequest,
  nextUser,
  seedUsers,
  signed,
  updateRequest,
  usersPath,
} from './requests.mjs';
import {
  killAll,
  onInterrupt,
  prismVersion,
  startBareExpress,
  startMapStorageServer,
  startPostgres,
  startPrism,
  startReferenceServer,
} from './servers.mjs';

/** How many users each server gets for the update scenario to cycle over. */
const seededUsers = 200;

const exactly = (expected) => (status) => status === expected;
const success = (status) => status >= 200 && status < 300;

/**
 * Prism answers a request that breaks the spec with 4xx, so 2xx answers mean our requests are
 * valid for it, and a 4xx to a broken body shows it really validates. Returns what it answered.
 */
async function probePrism(baseUrl, users) {
  const send = async (method, path, body) => {
    const answer = await fetch(`${baseUrl}${path}`, { method, ...signed({}, body) });
    await answer.arrayBuffer();
    return answer.status;
  };
  const probe = {
    create: await send('POST', usersPath, nextUser()),
    update: await send('PUT', `${usersPath}/${users[0].id}`, users[0].body),
    invalid: await send('POST', usersPath, { ...nextUser(), unknownField: true }),
  };
  if (!success(probe.create) || !success(probe.update) || success(probe.invalid)) {
    throw new Error(
      `Prism's answers make the comparison meaningless: valid create ${probe.create}, ` +
        `valid update ${probe.update}, create with an unknown field ${probe.invalid}`,
    );
  }
  return probe;
}

/**
 * Starts the servers (those `skip` does not name: prism, postgres, postgres-nondurable, embedded,
 * http-layer) and
 * returns the scenarios: { id, label, server, operation, run({ warmup }) }, the `notes` to print
 * (what was not measured and why, Prism's probe), and `stop()`.
 *
 * Scenario ids: bare-express:create, http-layer:create|update,
 * embedded:create|update|create-message-signatures,
 * postgres:create|update|create-message-signatures (PostgreSQL's durable defaults, as production runs it),
 * postgres-nondurable:create|update (fsync off: a figure for comparison only), prism:create|update.
 */
export async function startHttpScenarios({ connections, duration, skip = new Set(), log }) {
  const scratch = await mkdtemp(join(tmpdir(), 'institution-api-bench-'));
  const forgetScratch = onInterrupt(() => rm(scratch, { recursive: true, force: true }));
  const stops = [];
  const scenarios = [];
  const notes = [];
  const stop = async () => {
    for (const stopOne of stops.reverse()) await stopOne().catch(() => {});
    killAll();
    await rm(scratch, { recursive: true, force: true });
    forgetScratch();
  };
  const add = (server, label, { create, update, messageSignatures = false }) => {
    const run = (operation, requests, expect) =>
      scenarios.push({
        id: `${server}:${operation}`,
        server,
        operation,
        label: `${label}: ${operation}`,
        run: ({ warmup } = {}) =>
          drive({
            label: `${label}: ${operation}`,
            baseUrl: create.baseUrl,
            requests: requests(),
            connections,
            duration: warmup ?? duration,
            expect,
          }),
      });
    run('create', () => [createRequest()], create.expect);
    if (update) run('update', () => [updateRequest(update.users)], update.expect);
    // The same server, the same run: creates by the institution whose key pair requires message
    // signatures, signed both ways, side by side with the creates signed with the header alone.
    if (messageSignatures) {
      scenarios.push({
        id: `${server}:create-message-signatures`,
        server,
        operation: 'create-message-signatures',
        label: `${label}, message signatures required: create`,
        run: ({ warmup } = {}) =>
          drive({
            label: `${label}, message signatures required: create`,
            baseUrl: create.baseUrl,
            requests: [createRequest({ messageSignatures: true })],
            connections,
            duration: warmup ?? duration,
            expect: create.expect,
          }),
      });
    }
  };

  /** Starts one server unless skipped; an optional one that fails to start becomes a note. */
  const serve = async (server, label, start, { optional = false } = {}) => {
    if (skip.has(server)) {
      notes.push(`${label}: skipped by BENCH_SKIP`);
      return undefined;
    }
    log?.(`starting ${label}…`);
    let handle;
    try {
      handle = await start();
    } catch (error) {
      if (!optional) throw error;
      notes.push(`${label}: not measured, ${error.message.split('\n')[0]}`);
      return undefined;
    }
    stops.push(() => handle.stop());
    return handle;
  };

  try {
    const bare = await serve('bare-express', 'bare Express 5 JSON POST', startBareExpress);
    if (bare)
      add('bare-express', 'bare Express 5 JSON POST', {
        create: { ...bare, expect: exactly(201) },
      });

    for (const [server, label, start] of [
      ['http-layer', 'HTTP layer (Map storage)', startMapStorageServer],
      [
        'embedded',
        'embedded (default)',
        async () => {
          // A fresh, empty directory: the server's default embedded engine there, whatever it is.
          const dataDir = join(scratch, 'embedded');
          await mkdir(dataDir);
          return startReferenceServer('reference server, embedded', dataDir);
        },
      ],
      ...[
        ['postgres', 'PostgreSQL 15', { durable: true }],
        ['postgres-nondurable', 'PostgreSQL 15, fsync off (not durable)', { durable: false }],
      ].map(([server, label, options]) => [
        server,
        label,
        async () => {
          const postgres = await startPostgres(options);
          if (postgres.unavailable) throw new Error(postgres.unavailable);
          stops.push(() => postgres.stop());
          return startReferenceServer(`reference server, ${label}`, postgres.url);
        },
      ]),
    ]) {
      const handle = await serve(server, label, start, {
        optional: server.startsWith('postgres'),
      });
      if (!handle) continue;
      const users = await seedUsers(handle.baseUrl, seededUsers);
      add(server, label, {
        create: { ...handle, expect: exactly(201) },
        update: { users, expect: exactly(200) },
        messageSignatures: server === 'embedded' || server === 'postgres',
      });
    }

    const prism = await serve('prism', `Prism ${prismVersion} mock`, startPrism, {
      optional: true,
    });
    if (prism) {
      const users = await seedUsers(prism.baseUrl, seededUsers, { stateless: true });
      const probe = await probePrism(prism.baseUrl, users);
      notes.push(
        `Prism ${prismVersion} validates our requests: a valid create answered ${probe.create}, ` +
          `a valid update ${probe.update}, a create with an unknown field ${probe.invalid}.`,
      );
      add('prism', `Prism ${prismVersion} mock`, {
        create: { ...prism, expect: success },
        update: { users, expect: success },
      });
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { scenarios, notes, stop };
}

/**
 * Runs every scenario once as a warm-up (`run({ warmup: seconds })`, unrecorded), then `runs`
 * times, interleaved: run after run of all scenarios, each run starting at another scenario.
 * Scenarios are { id, label, run({ warmup }) }, so a caller can add its own (the client's).
 * Returns Map(id → [result of each run]).
 */
export async function runInterleaved(scenarios, { runs, warmup, log }) {
  const samples = new Map(scenarios.map((scenario) => [scenario.id, []]));
  if (warmup > 0) {
    log?.(`warming up (${warmup} s per scenario)…`);
    for (const scenario of scenarios) await scenario.run({ warmup });
  }
  const shift = Math.ceil(scenarios.length / runs);
  for (let run = 0; run < runs; run++) {
    const start = (run * shift) % scenarios.length;
    const order = [...scenarios.slice(start), ...scenarios.slice(0, start)];
    for (const [index, scenario] of order.entries()) {
      log?.(`run ${run + 1}/${runs}, ${index + 1}/${order.length}: ${scenario.label}`);
      samples.get(scenario.id).push(await scenario.run({}));
    }
  }
  return samples;
}
