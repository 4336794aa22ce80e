// The HTTP scenarios of the benchmark, shared by the package's `npm run bench` (bench/http.mjs) and
// the root's one table (bench/run.mjs at the repository root): the servers are started once, warmed
// up, and each scenario is then measured once per run, runs interleaved, so that a burst of load
// from elsewhere on a shared machine skews one sample of every scenario rather than one scenario.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postgresCpuReader, processGroupCpuMicros } from './cpu.mjs';
import { drive, median } from './load.mjs';
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
  startValidatorFloor,
  validatorFloorLabel,
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
 * Starts the servers (those `skip` does not name: bare-express, validator-floor, prism, postgres,
 * postgres-nondurable, embedded, http-layer) and
 * returns the scenarios: { id, label, server, operation, run({ warmup }) }, the `notes` to print
 * (what was not measured and why, Prism's probe), and `stop()`.
 *
 * Each run's result is drive()'s with `cpuPerRequest`, the server's CPU per answered request in µs
 * (its process group's, from /proc; absent where /proc cannot be read), and on PostgreSQL
 * `databaseCpuPerRequest`, the cluster's.
 *
 * Scenario ids: bare-express:create, validator-floor:create,
 * http-layer:create|update|create-message-signatures|message-signature-cost,
 * embedded:create|update|create-message-signatures|message-signature-cost,
 * postgres:create|update|create-message-signatures|message-signature-cost (PostgreSQL's durable
 * defaults, as production runs it); a message-signature-cost run gives { cpuCost, differences }
 * (µs of server CPU per create, see messageSignatureCost) instead of drive()'s result;
 * postgres-nondurable:create|update (fsync off: a figure for comparison only), prism:create|update.
 */
export async function startHttpScenarios({ connections, duration, skip = new Set(), log }) {
  /** Pairs and seconds per side of a message signature's cost (see messageSignatureCost). */
  const costPairs = Number(process.env.BENCH_COST_PAIRS ?? 6);
  const costWindow = Math.max(1, Math.round(duration / 2));
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
  /**
   * The scenarios of one server: `handle` is what started it ({ baseUrl, pid }: its process group's
   * CPU is read around each run), `databaseCpu` a reader of its database's CPU when it has one.
   */
  const add = (
    server,
    label,
    { handle, databaseCpu, create, update, messageSignatures = false },
  ) => {
    const scenario = (operation, scenarioLabel, requests, expect) =>
      scenarios.push({
        id: `${server}:${operation}`,
        server,
        operation,
        label: scenarioLabel,
        run: async ({ warmup } = {}) => {
          const cpuBefore = processGroupCpuMicros(handle.pid);
          const databaseBefore = databaseCpu?.();
          const result = await drive({
            label: scenarioLabel,
            baseUrl: handle.baseUrl,
            requests: requests(),
            connections,
            duration: warmup ?? duration,
            expect,
          });
          const cpuAfter = processGroupCpuMicros(handle.pid);
          // Server CPU per answered request, µs: what the rates' ratios cannot tell apart from
          // the load of other work on the machine.
          if (cpuBefore !== undefined && cpuAfter !== undefined && result.total > 0) {
            result.cpuPerRequest = (cpuAfter - cpuBefore) / result.total;
          }
          if (databaseBefore !== undefined && result.total > 0) {
            result.databaseCpuPerRequest = (databaseCpu() - databaseBefore) / result.total;
          }
          return result;
        },
      });
    scenario('create', `${label}: create`, () => [createRequest()], create.expect);
    if (update) {
      scenario('update', `${label}: update`, () => [updateRequest(update.users)], update.expect);
    }
    // The same server, the same run: creates by the institution whose key pair requires message
    // signatures, signed both ways, side by side with the creates signed with the header alone.
    if (messageSignatures) {
      scenario(
        'create-message-signatures',
        `${label}, message signatures required: create`,
        () => [createRequest({ messageSignatures: true })],
        create.expect,
      );
      scenarios.push({
        id: `${server}:message-signature-cost`,
        server,
        operation: 'message-signature-cost',
        label: `${label}: a message signature's CPU`,
        run: ({ warmup } = {}) =>
          warmup === undefined ? messageSignatureCost(handle) : Promise.resolve(undefined),
      });
    }
  };

  /**
   * The server CPU a message signature adds to a create, taken in pairs: creates signed with the
   * header alone and creates signed both ways, driven one right after the other for a short
   * window each (the order alternating from pair to pair), so that both sides of a difference of a
   * few tens of µs in a few hundred see the same machine; the median of the pairs' differences.
   */
  const messageSignatureCost = async (handle) => {
    const cpuPerCreate = async (messageSignatures) => {
      const before = processGroupCpuMicros(handle.pid);
      const result = await drive({
        label: `${handle.name}: a message signature's CPU`,
        baseUrl: handle.baseUrl,
        requests: [createRequest({ messageSignatures })],
        connections,
        duration: costWindow,
        expect: exactly(201),
      });
      return (processGroupCpuMicros(handle.pid) - before) / result.total;
    };
    const differences = [];
    for (let pair = 0; pair < costPairs; pair++) {
      const order = pair % 2 === 0 ? [false, true] : [true, false];
      const [first, second] = [await cpuPerCreate(order[0]), await cpuPerCreate(order[1])];
      differences.push(order[0] ? first - second : second - first);
    }
    return { cpuCost: median(differences), differences };
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
        handle: bare,
        create: { expect: exactly(201) },
      });
    const floor = await serve('validator-floor', validatorFloorLabel, startValidatorFloor);
    if (floor)
      add('validator-floor', validatorFloorLabel, {
        handle: floor,
        create: { expect: exactly(201) },
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
          const handle = await startReferenceServer(`reference server, ${label}`, postgres.url);
          handle.databaseCpu = postgresCpuReader(new URL(postgres.url).port);
          return handle;
        },
      ]),
    ]) {
      const handle = await serve(server, label, start, {
        optional: server.startsWith('postgres'),
      });
      if (!handle) continue;
      const users = await seedUsers(handle.baseUrl, seededUsers);
      add(server, label, {
        handle,
        databaseCpu: handle.databaseCpu,
        create: { expect: exactly(201) },
        update: { users, expect: exactly(200) },
        messageSignatures: server !== 'postgres-nondurable',
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
        handle: prism,
        create: { expect: success },
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
